/** Prints rows as a plain aligned table. */
export const printTable = (headers: readonly string[], rows: readonly (readonly string[])[]): void => {
  const widths = headers.map((header, column) => Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]) => cells.map((cell, column) => cell.padEnd(widths[column]!)).join('  ');
  process.stdout.write(`${line(headers)}\n${widths.map((width) => '-'.repeat(width)).join('  ')}\n`);
  for (const row of rows) process.stdout.write(`${line(row)}\n`);
};

export const ms = (value: number): string => `${value.toFixed(3)} ms`;
