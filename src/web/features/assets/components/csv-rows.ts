/**
 * The first `limit` rows of a CSV text (RFC 4180: fields in double quotes may hold commas, line breaks
 * and doubled quotes), and whether there were more. A semicolon-separated file (as spreadsheets save
 * in many European locales) is read as such when its first line has semicolons and no commas.
 */
export function csvRows(text: string, limit: number): { rows: string[][]; more: boolean } {
  const firstLine = text.slice(0, text.search(/\r?\n|$/));
  const separator = firstLine.includes(';') && !firstLine.includes(',') ? ';' : ',';
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0; // a byte order mark is not part of the first field
  const endRow = () => {
    row.push(field);
    rows.push(row);
    row = [];
    field = '';
  };
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === separator) {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      endRow();
      if (rows.length > limit) return { rows: rows.slice(0, limit), more: true };
    } else field += c;
  }
  if (field !== '' || row.length > 0) endRow();
  return { rows: rows.slice(0, limit), more: rows.length > limit };
}
