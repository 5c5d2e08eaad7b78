import type { MessageStructureObject } from 'imapflow';

/** A part of a message that is a file: named, or marked as an attachment. */
export interface AttachmentInfo {
  readonly filename: string | null;
  readonly content_type: string;
  readonly size: number | null;
  readonly part: string;
}

function isAttachment(node: MessageStructureObject): boolean {
  return node.disposition === 'attachment' || node.dispositionParameters?.filename !== undefined || node.parameters?.name !== undefined;
}

/** The leaves of a body structure, in order; a single-part message is its own leaf, numbered 1 as IMAP numbers it. */
function leaves(node: MessageStructureObject): MessageStructureObject[] {
  if (node.childNodes !== undefined && node.childNodes.length > 0) return node.childNodes.flatMap(leaves);
  return [node.part === undefined ? { ...node, part: '1' } : node];
}

/** The part holding the message's text: its first inline text/plain, else its first inline text/html. */
export function textPartOf(structure: MessageStructureObject): { part: string; type: string } | undefined {
  const inline = leaves(structure).filter((node) => !isAttachment(node));
  const found = inline.find((node) => node.type === 'text/plain') ?? inline.find((node) => node.type === 'text/html');
  return found?.part === undefined ? undefined : { part: found.part, type: found.type };
}

export function attachmentsOf(structure: MessageStructureObject): AttachmentInfo[] {
  return leaves(structure).filter(isAttachment).map((node) => ({
    filename: node.dispositionParameters?.filename ?? node.parameters?.name ?? null,
    content_type: node.type,
    size: node.size ?? null,
    part: node.part ?? '1',
  }));
}

/** Text of an HTML body for search and reading, not rendering: tags dropped, entities of the common kind decoded. */
export function htmlToText(html: string): string {
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, '')
    .replace(/<br\s*\/?>|<\/(p|div|h[1-6]|li|tr|blockquote)>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&nbsp;/g, ' ').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
