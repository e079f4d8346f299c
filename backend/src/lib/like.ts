/** `text` for a SQL LIKE/ILIKE pattern: its own `\`, `%` and `_` match only themselves (`\` is the default ESCAPE). */
export const escapeLike = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`);
