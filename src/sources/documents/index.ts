export { plainValue } from './plain-value.ts';
export { restoreCursor, saveCursor, type SavedCursor } from './cursor-value.ts';
