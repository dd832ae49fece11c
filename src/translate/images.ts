// Image references between the dialects: data URL ⇄ base64 source, http(s) URL ⇄ url source.
import type { ImageSource } from './wire-anthropic.ts';
import { TranslationError } from './translation-error.ts';

/** The media types Anthropic accepts for base64 images (Base64ImageSource in anthropic-openapi.json). */
export const ANTHROPIC_IMAGE_TYPES: readonly string[] = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];

const DATA_URL = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s;

export function imageUrlToSource(url: string, param: string): ImageSource {
  const m = DATA_URL.exec(url);
  if (m !== null) {
    const mediaType = m[1].toLowerCase() === 'image/jpg' ? 'image/jpeg' : m[1].toLowerCase();
    if (!ANTHROPIC_IMAGE_TYPES.includes(mediaType)) {
      throw new TranslationError(param, `image media type ${m[1]} is not supported by this model; use jpeg, png, gif or webp`);
    }
    return { type: 'base64', media_type: mediaType, data: m[2] };
  }
  if (/^https?:\/\//i.test(url)) return { type: 'url', url };
  throw new TranslationError(param, 'image_url.url must be an http(s) URL or a base64 data URL');
}

export function sourceToImageUrl(source: ImageSource): string {
  return source.type === 'base64' ? `data:${source.media_type};base64,${source.data}` : source.url;
}
