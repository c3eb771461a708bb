// Bench (not a test) of the server README's memory claim (issue 10, acceptance 5; issue 22, L7): peak RSS of
// the server process while PARALLEL uploads of 24 MiB arrive at once, on both upload routes
// (`POST /api/inspect`, `POST /api/sign-image-v2`) and for each kind of file (Markdown, PNG, PDF), each on a
// fresh server with the default admission settings (8 uploads in flight, 128 MiB of bodies held, 32 waiting
// up to 10 s). An upload answered 503 SERVER_BUSY is sent again after its Retry-After, as a client of the
// API should, until every one is answered. Goal: peak < 500 MB for every route and type.
//
//   npm run build && node bench/server/upload-memory.mjs
//   BENCH_PARALLEL=60 BENCH_UPLOAD_MIB=24 BENCH_CASES=inspect:md,sign:png node bench/server/upload-memory.mjs
//
// Exits 1 when an upload is answered anything but 200 (after its 503s): then it measured something else.
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { deflateSync } from 'node:zlib';
import { pngChunk } from '../../server/fixtures/png-chunk.mjs';
import { createBenchRun, memoryOf } from './processes.mjs';

const PARALLEL = Number(process.env.BENCH_PARALLEL ?? 60);
const MIB = Number(process.env.BENCH_UPLOAD_MIB ?? 24);
const GOAL_MB = 500;
const CASES = (process.env.BENCH_CASES ?? 'inspect:md,inspect:png,inspect:pdf,sign:md,sign:png,sign:pdf')
  .split(',')
  .map((name) => {
    const [route, type] = name.split(':');
    return { route, type };
  });
const ROUTES = { inspect: '/api/inspect', sign: '/api/sign-image-v2' };
/** What each file's bytes are, besides its one shared body: ~64 KiB of headers at most. */
const BODY_BYTES = MIB * 1024 * 1024 - 64 * 1024;

/**
 * `count` different files of about MIB MiB each, as lists of parts: a small head of their own (naming their
 * number) and one body shared by all (made once), so the bench holds one copy of the bulk, not `count`.
 */
const makers = {
  /** Markdown with frontmatter; the body is prose with umlauts (so it is not ASCII: two-byte strings). */
  md(count) {
    const line =
      'Grüße aus Köln: ein Absatz mit Umlauten, damit der Text kein reines ASCII ist. ÄÖÜ äöü ß.\n';
    const body = Buffer.from(line.repeat(Math.ceil(BODY_BYTES / Buffer.byteLength(line))));
    return Array.from({ length: count }, (_, i) => ({
      name: `bench-${i}.md`,
      type: 'text/markdown',
      parts: [
        Buffer.from(`---\nauthor: Bench Author\ntitle: Bench note ${i}\n---\n# Bench note ${i}\n\n`),
        body,
      ],
    }));
  },
  /** PNG of noise with an XMP author; a `tEXt` chunk names its number. */
  png(count) {
    const width = 1024;
    const rowBytes = width * 3 + 1;
    const height = Math.floor(BODY_BYTES / rowBytes);
    const raw = randomBytes(height * rowBytes);
    for (let row = 0; row < height; row++) raw[row * rowBytes] = 0;
    const idat = pngChunk('IDAT', deflateSync(raw, { level: 0 }));
    const ihdr = Buffer.alloc(13);
    ihdr.writeUInt32BE(width, 0);
    ihdr.writeUInt32BE(height, 4);
    ihdr.set([8, 2, 0, 0, 0], 8);
    const xmp = Buffer.from(
      'XML:com.adobe.xmp\0\0\0\0\0<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator><rdf:Seq><rdf:li>Bench Author</rdf:li></rdf:Seq></dc:creator></rdf:Description></rdf:RDF></x:xmpmeta>',
    );
    const head = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      pngChunk('IHDR', ihdr),
      pngChunk('iTXt', xmp),
    ]);
    const end = pngChunk('IEND', Buffer.alloc(0));
    return Array.from({ length: count }, (_, i) => ({
      name: `bench-${i}.png`,
      type: 'image/png',
      parts: [
        Buffer.concat([head, pngChunk('tEXt', Buffer.from(`Comment\0parallel upload ${i}`))]),
        idat,
        end,
      ],
    }));
  },
  /**
   * PDF (classic xref) whose info dictionary names the author and a numbered title, then one large binary
   * stream. The title has a fixed width, so every file has the same offsets and shares the stream and xref.
   */
  pdf(count) {
    const stream = Buffer.concat([
      Buffer.from(`<< /Length ${BODY_BYTES} >>\nstream\n`, 'latin1'),
      randomBytes(BODY_BYTES),
      Buffer.from('\nendstream', 'latin1'),
    ]);
    const objects = (i) => [
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>',
      `<< /Author (Bench Author) /Title (Bench document ${String(i).padStart(6, '0')}) >>`,
    ];
    const frame = (index, body) => Buffer.from(`${index + 1} 0 obj\n${body}\nendobj\n`, 'latin1');
    const offsets = [];
    let length = '%PDF-1.7\n'.length;
    for (const [index, body] of objects(0).entries()) {
      offsets.push(length);
      length += frame(index, body).length;
    }
    offsets.push(length);
    const streamObject = Buffer.concat([
      Buffer.from('5 0 obj\n', 'latin1'),
      stream,
      Buffer.from('\nendobj\n'),
    ]);
    length += streamObject.length;
    let tail = `xref\n0 6\n0000000000 65535 f \n`;
    for (const offset of offsets) tail += `${String(offset).padStart(10, '0')} 00000 n \n`;
    tail += `trailer\n<< /Size 6 /Root 1 0 R /Info 4 0 R >>\nstartxref\n${length}\n%%EOF\n`;
    const shared = [streamObject, Buffer.from(tail, 'latin1')];
    return Array.from({ length: count }, (_, i) => ({
      name: `bench-${i}.pdf`,
      type: 'application/pdf',
      parts: [
        Buffer.concat([
          Buffer.from('%PDF-1.7\n', 'latin1'),
          ...objects(i).map((body, index) => frame(index, body)),
        ]),
        ...shared,
      ],
    }));
  },
};

/**
 * POST one multipart upload made of `parts` (written one after another, never joined) with its
 * `Content-Length`, as a browser or curl sends a file; resolves to the status and Retry-After.
 */
function uploadParts(port, path, token, { name, type, parts }) {
  const boundary = `bench${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: ${type}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const pieces = [head, ...parts, tail];
  const length = pieces.reduce((sum, piece) => sum + piece.length, 0);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        headers: {
          Authorization: `Bearer ${token}`,
          'Content-Type': `multipart/form-data; boundary=${boundary}`,
          'Content-Length': String(length),
        },
      },
      (res) => {
        let body = '';
        res.on('data', (chunk) => {
          body += chunk;
        });
        res.on('end', () =>
          resolve({ status: res.statusCode, body, retryAfter: res.headers['retry-after'] }),
        );
      },
    );
    req.on('error', reject);
    (async () => {
      for (const piece of pieces) {
        if (!req.write(piece)) await new Promise((done) => req.once('drain', done));
      }
      req.end();
    })().catch(reject);
  });
}

const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const run = createBenchRun();
const rows = [];
let failed = false;
try {
  const bunker = await run.startBunker();
  const token = randomBytes(16).toString('hex');
  const files = {};
  for (const { route, type } of CASES) {
    files[type] ??= makers[type](PARALLEL);
    const server = await run.startServer(bunker, token);
    await fetch(`http://127.0.0.1:${server.port}/api/verify?hash=${'0'.repeat(64)}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const idle = await memoryOf(server.child.pid);
    await writeFile(`/proc/${server.child.pid}/clear_refs`, '5'); // peak counter from now
    const started = performance.now();
    const statuses = {};
    let refusal = '';
    await Promise.all(
      files[type].map(async (file) => {
        while (true) {
          const { status, body, retryAfter } = await uploadParts(server.port, ROUTES[route], token, file);
          statuses[status] = (statuses[status] ?? 0) + 1;
          if (status !== 503) {
            if (status !== 200) refusal ||= body.slice(0, 300);
            return;
          }
          await new Promise((resolve) => setTimeout(resolve, 1000 * Number(retryAfter ?? 1)));
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const { peak } = await memoryOf(server.child.pid);
    const size = files[type][0].parts.reduce((sum, part) => sum + part.length, 0);
    rows.push({ route, type, size, idle: idle.current, peak, seconds, statuses, refusal });
    if (refusal) failed = true;
    await run.stop(server.child);
  }
} finally {
  await run.close();
}
console.log(
  `siegel server upload memory bench: Node ${process.versions.node}, ${PARALLEL} parallel uploads per case, default admission`,
);
for (const row of rows) {
  console.log(
    `  ${row.route.padEnd(7)} ${row.type.padEnd(3)} ${PARALLEL} × ${mb(row.size)}: idle ${mb(row.idle)}, peak ${mb(row.peak)} (goal < ${GOAL_MB} MB: ${row.peak < GOAL_MB * 1024 * 1024 ? 'met' : 'NOT met'}); all answered in ${row.seconds.toFixed(1)} s ${JSON.stringify(row.statuses)}${row.refusal ? ` — refused: ${row.refusal}` : ''}`,
  );
}
if (failed) {
  console.error('upload memory bench: some uploads were not answered 200');
  process.exit(1);
}
