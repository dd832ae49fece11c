// Prompt tokens of one image or document part, as an upper bound of what its provider bills: images by
// their dimensions (read from base64 data; image-size.ts) through the formula of the upstream model's
// family, and the family's largest image when the size cannot be known (a URL, a file id); documents by
// their pages, or by their size when the pages cannot be counted.
//
// Formulas (provider documentation):
// - Anthropic: an image is scaled to at most 1568 px on its long edge and about 1.15 megapixels, then
//   costs width × height / 750 tokens (at most ≈ 1,600).
// - OpenAI tile models (gpt-4o, gpt-4.1, o1, o3, gpt-5): `detail: low` costs the base; otherwise the image
//   is fitted into 2048 × 2048, its short side brought down to 768, and every 512-px tile costs the tile
//   price on top of the base: 85 + 170 a tile (gpt-4o-mini: 2,833 + 5,667 a tile).
// - OpenAI patch models (gpt-4.1-mini, gpt-4.1-nano, o4-mini): 32-px patches, at most 1,536, times a
//   model multiplier (1.62, 2.46, 1.72).
// - Other models: the larger of the Anthropic and tile formulas.
// - PDF documents (Anthropic): each page is its text (up to ≈ 3,000 tokens) and an image of it (≈ 1,600).
import { isObject } from '../core/json.ts';
import { imageSize, type ImageSize } from './image-size.ts';

/** An image or file whose size nothing tells: the common case of the formulas' largest images. */
export const MEDIA_TOKENS = 1600;
const PDF_PAGE_TOKENS = 3000 + 1600;
/** A PDF is at most 100 pages (Anthropic's limit): its estimate stops there. */
const MAX_DOCUMENT_TOKENS = 100 * PDF_PAGE_TOKENS;
/** Without a page count, a document's decoded bytes bound its tokens at this many bytes a token. */
const DOCUMENT_BYTES_PER_TOKEN = 2;

interface TileModel {
  kind: 'tile';
  base: number;
  tile: number;
}
interface PatchModel {
  kind: 'patch';
  multiplier: number;
}
type Family = TileModel | PatchModel | { kind: 'anthropic' } | { kind: 'other' };

const GPT4O: TileModel = { kind: 'tile', base: 85, tile: 170 };
const GPT4O_MINI: TileModel = { kind: 'tile', base: 2833, tile: 5667 };

function familyOf(model: string): Family {
  const m = model.toLowerCase();
  if (m.startsWith('claude') || m.includes('anthropic')) return { kind: 'anthropic' };
  if (/gpt-4\.1-mini/.test(m)) return { kind: 'patch', multiplier: 1.62 };
  if (/gpt-4\.1-nano/.test(m)) return { kind: 'patch', multiplier: 2.46 };
  if (/o4-mini/.test(m)) return { kind: 'patch', multiplier: 1.72 };
  if (/gpt-4o-mini/.test(m)) return GPT4O_MINI;
  if (/^(?:ft:)?(?:gpt-|chatgpt-|o\d)/.test(m)) return GPT4O;
  return { kind: 'other' };
}

function anthropicTokens(size: ImageSize): number {
  const scale = Math.min(
    1,
    1568 / Math.max(size.width, size.height),
    Math.sqrt(1_150_000 / (size.width * size.height)),
  );
  return Math.ceil((Math.round(size.width * scale) * Math.round(size.height * scale)) / 750);
}

function tileTokens(size: ImageSize, m: TileModel, low: boolean): number {
  if (low) return m.base;
  let { width: w, height: h } = size;
  const fit = Math.min(1, 2048 / Math.max(w, h));
  w *= fit;
  h *= fit;
  const shrink = Math.min(1, 768 / Math.min(w, h));
  w *= shrink;
  h *= shrink;
  return m.base + m.tile * Math.ceil(w / 512) * Math.ceil(h / 512);
}

function patchTokens(size: ImageSize, m: PatchModel): number {
  let patches = Math.ceil(size.width / 32) * Math.ceil(size.height / 32);
  if (patches > 1536) {
    // Scaled down to fit 1,536 patches (OpenAI's rule; the rounding never makes more).
    const scale = Math.sqrt((1536 * 32 * 32) / (size.width * size.height));
    patches = Math.min(1536, Math.ceil((size.width * scale) / 32) * Math.ceil((size.height * scale) / 32));
  }
  return Math.ceil(patches * m.multiplier);
}

/** The family's largest image: what an image of unknown size may cost. */
function largestImage(f: Family): number {
  if (f.kind === 'tile') return Math.max(MEDIA_TOKENS, f.base + 8 * f.tile);
  if (f.kind === 'patch') return Math.ceil(1536 * f.multiplier);
  return MEDIA_TOKENS;
}

function imageTokens(size: ImageSize | null, f: Family, low: boolean): number {
  if (size === null) return f.kind === 'tile' && low ? f.base : largestImage(f);
  if (f.kind === 'anthropic') return anthropicTokens(size);
  if (f.kind === 'tile') return tileTokens(size, f, low);
  if (f.kind === 'patch') return patchTokens(size, f);
  return Math.max(anthropicTokens(size), tileTokens(size, GPT4O, false));
}

/** The base64 payload of a part: a data URL (OpenAI) or an Anthropic `source`. */
function base64Of(part: Record<string, unknown>): string | null {
  const source = part.source;
  if (isObject(source) && source.type === 'base64' && typeof source.data === 'string') return source.data;
  const url = isObject(part.image_url) ? part.image_url.url : part.image_url;
  const data = typeof url === 'string' ? url : isObject(part.file) ? part.file.file_data : part.file_data;
  if (typeof data !== 'string' || !data.startsWith('data:')) return null;
  const comma = data.indexOf(',');
  return comma === -1 ? null : data.slice(comma + 1);
}

function isLow(part: Record<string, unknown>): boolean {
  return part.detail === 'low' || (isObject(part.image_url) && part.image_url.detail === 'low');
}

/** Pages of a PDF: its page objects, or the largest page count its page tree declares; 0 when neither shows. */
function pdfPages(base64: string): number {
  const text = Buffer.from(base64, 'base64').toString('latin1');
  let pages = 0;
  for (const _ of text.matchAll(/\/Type\s*\/Page(?![a-zA-Z])/g)) pages++;
  for (const m of text.matchAll(/\/Count\s+(\d+)/g)) pages = Math.max(pages, Number(m[1]));
  return pages;
}

function documentTokens(part: Record<string, unknown>, thorough: boolean): number {
  const data = base64Of(part);
  if (data === null) return MEDIA_TOKENS;
  const bytes = Math.floor((data.length * 3) / 4);
  const pages = thorough ? pdfPages(data) : 0;
  const tokens = pages > 0 ? pages * PDF_PAGE_TOKENS : Math.ceil(bytes / DOCUMENT_BYTES_PER_TOKEN);
  return Math.min(MAX_DOCUMENT_TOKENS, Math.max(MEDIA_TOKENS, tokens));
}

const IMAGE_TYPES: ReadonlySet<string> = new Set(['image', 'image_url', 'input_image']);

/**
 * Tokens of one media part (its `type` is an image, audio, document or file type) for `model`.
 * `thorough`: the full estimate (near a limit) may read a whole document to count its pages; the quick
 * pass bounds it by its size alone.
 */
export function mediaTokens(part: Record<string, unknown>, model: string, thorough: boolean): number {
  const type = part.type as string;
  if (IMAGE_TYPES.has(type)) {
    const data = base64Of(part);
    return imageTokens(data === null ? null : imageSize(data), familyOf(model), isLow(part));
  }
  if (type === 'document' || type === 'file' || type === 'input_file') return documentTokens(part, thorough);
  return MEDIA_TOKENS;
}
