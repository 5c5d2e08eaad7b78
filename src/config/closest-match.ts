/** The candidate nearest to `word` when a typing slip explains the difference, else undefined. */
export function closestMatch(word: string, candidates: readonly string[]): string | undefined {
  const normalized = normalize(word);
  const allowedDistance = Math.min(2, Math.floor(normalized.length / 3));
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(normalized, normalize(candidate));
    if (distance <= allowedDistance && (best === undefined || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate;
}

function normalize(word: string): string {
  return word.trim().toLowerCase().replaceAll(/[\s-]+/g, '_');
}

/** Levenshtein distance: insertions, deletions and substitutions each count one. */
function editDistance(first: string, second: string): number {
  let previous = Array.from({ length: second.length + 1 }, (_, index) => index);
  for (let row = 1; row <= first.length; row++) {
    const current = [row];
    for (let column = 1; column <= second.length; column++) {
      const substitution = (previous[column - 1] ?? 0) + (first[row - 1] === second[column - 1] ? 0 : 1);
      current.push(Math.min((previous[column] ?? 0) + 1, (current[column - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[second.length] ?? 0;
}
