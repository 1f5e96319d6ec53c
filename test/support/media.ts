// Small, valid media files made in the test: PNG pictures, PDFs with a compressed content stream and
// Jupyter notebooks. Nothing is copied from elsewhere.
import { randomBytes } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body) >>> 0);
  return Buffer.concat([length, body, crc]);
}

/** An RGB PNG of the given size, coloured by position so two sizes never share bytes. */
export function makePng(width: number, height: number): Buffer {
  return pngOf(width, height, (row, y) => {
    for (let x = 0; x < width; x++) row.set([(x * 7) & 255, (y * 13) & 255, (x + y) & 255], 1 + x * 3);
  });
}

/** An RGB PNG of random pixels: it does not compress, so its bytes are about width × height × 3. */
export function makeNoisePng(width: number, height: number): Buffer {
  return pngOf(width, height, (row) => randomBytes(width * 3).copy(row, 1));
}

/** The width and height a PNG's header states. */
export function pngSize(png: Buffer): { width: number; height: number } {
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

function pngOf(width: number, height: number, paint: (row: Buffer, y: number) => void): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // truecolour
  const rows: Buffer[] = [];
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(1 + width * 3);
    paint(row, y);
    rows.push(row);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A PDF whose pages each show one line of text, in FlateDecode-compressed content streams. */
export function makePdf(pages: string[]): Buffer {
  const objects: string[] = [];
  const streams: Buffer[] = [];
  const pageIds = pages.map((_, index) => 4 + index * 2);
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[2] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pages.length} >>`;
  objects[3] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';
  pages.forEach((text, index) => {
    const id = pageIds[index]!;
    objects[id] = `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${id + 1} 0 R >>`;
    const content = deflateSync(Buffer.from(`BT /F1 18 Tf 72 700 Td (${text.replace(/[()\\]/g, '\\$&')}) Tj ET`, 'latin1'));
    streams[id + 1] = content;
    objects[id + 1] = `<< /Length ${content.length} /Filter /FlateDecode >>`;
  });
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  const offsets: number[] = [];
  let size = parts[0]!.length;
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = size;
    const stream = streams[id];
    const piece = stream
      ? Buffer.concat([Buffer.from(`${id} 0 obj\n${objects[id]}\nstream\n`, 'latin1'), stream, Buffer.from('\nendstream\nendobj\n', 'latin1')])
      : Buffer.from(`${id} 0 obj\n${objects[id]}\nendobj\n`, 'latin1');
    parts.push(piece);
    size += piece.length;
  }
  const xref = [
    `xref\n0 ${objects.length}\n`,
    '0000000000 65535 f \n',
    ...offsets.slice(1).map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`),
  ].join('');
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${size}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(parts);
}

/** A notebook with a code cell that printed, one that failed, and one that drew a picture. */
export function makeNotebook(picture: Buffer): string {
  return JSON.stringify({
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {},
    cells: [
      { cell_type: 'markdown', id: 'intro', metadata: {}, source: ['# Analysis\n'] },
      {
        cell_type: 'code',
        id: 'load',
        metadata: {},
        execution_count: 1,
        source: ['print("rows:", 42)'],
        outputs: [{ output_type: 'stream', name: 'stdout', text: ['rows: 42\n'] }],
      },
      {
        cell_type: 'code',
        id: 'boom',
        metadata: {},
        execution_count: 2,
        source: ['1 / 0'],
        outputs: [
          {
            output_type: 'error',
            ename: 'ZeroDivisionError',
            evalue: 'division by zero',
            traceback: ['\u001b[0;31mZeroDivisionError\u001b[0m: division by zero'],
          },
        ],
      },
      {
        cell_type: 'code',
        id: 'plot',
        metadata: {},
        execution_count: 3,
        source: ['plot()'],
        outputs: [{ output_type: 'display_data', metadata: {}, data: { 'image/png': picture.toString('base64'), 'text/plain': ['<Figure>'] } }],
      },
    ],
  });
}

/**
 * A small PDF whose page draws one line of text and then has a second content stream that inflates
 * to `inflatedMb` megabytes of `fill` (a decompression bomb: ~400 KB for 400 MB of spaces). With
 * `filters: 2` the stream is deflated twice (`[/FlateDecode /FlateDecode]`): a few KB for gigabytes.
 */
export async function makeBombPdf(inflatedMb: number, options: { fill?: string; filters?: 1 | 2 } = {}): Promise<Buffer> {
  const { createDeflate, deflateSync } = await import('node:zlib');
  const piece = Buffer.alloc(1 << 20, options.fill ?? ' ');
  const deflate = createDeflate({ level: 9 });
  const parts: Buffer[] = [];
  deflate.on('data', (data: Buffer) => parts.push(data));
  const ended = new Promise((resolve) => deflate.on('end', resolve));
  for (let written = 0; written < inflatedMb; written++) if (!deflate.write(piece)) await new Promise((resolve) => deflate.once('drain', resolve));
  deflate.end();
  await ended;
  let bomb = Buffer.concat(parts);
  if (options.filters === 2) bomb = deflateSync(bomb, { level: 9 });
  const filter = options.filters === 2 ? '[/FlateDecode /FlateDecode]' : '/FlateDecode';
  const text = deflateSync(Buffer.from('BT /F1 18 Tf 72 700 Td (Hello from the bomb) Tj ET\n', 'latin1'));
  const objects = [
    '',
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [4 0 R] /Count 1 >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents [5 0 R 6 0 R] >>',
    `<< /Length ${text.length} /Filter /FlateDecode >>`,
    `<< /Length ${bomb.length} /Filter ${filter} >>`,
  ];
  const streams: Record<number, Buffer> = { 5: text, 6: bomb };
  const out: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  const offsets: number[] = [];
  let size = out[0]!.length;
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = size;
    const stream = streams[id];
    const chunk = stream
      ? Buffer.concat([Buffer.from(`${id} 0 obj\n${objects[id]}\nstream\n`, 'latin1'), stream, Buffer.from('\nendstream\nendobj\n', 'latin1')])
      : Buffer.from(`${id} 0 obj\n${objects[id]}\nendobj\n`, 'latin1');
    out.push(chunk);
    size += chunk.length;
  }
  const xref = [
    `xref\n0 ${objects.length}\n`,
    '0000000000 65535 f \n',
    ...offsets.slice(1).map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`),
  ].join('');
  out.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${size}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(out);
}
