// Reads the rows of the first Markdown table under a heading (or in the whole file), for the tests that
// keep the reference pages in docs/ true to the code.
import { readFileSync } from 'node:fs';

/** Each row as its cells, trimmed, with surrounding backticks removed; the header and rule rows skipped. */
export function tableRows(file: string): string[][] {
  const rows: string[][] = [];
  let inTable = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.startsWith('|')) {
      if (inTable) break;
      continue;
    }
    const cells = line
      .slice(1, line.endsWith('|') ? -1 : undefined)
      .split(/(?<!\\)\|/)
      .map((c) => c.trim());
    if (!inTable) {
      inTable = true; // the header row
      continue;
    }
    if (cells.every((c) => /^:?-+:?$/.test(c))) continue;
    rows.push(cells.map((c) => c.replace(/\\\|/g, '|').replace(/^`([^`]*)`$/, '$1')));
  }
  return rows;
}
