// The `encoding_format: "base64"` form of an embedding, as OpenAI's API and SDKs read it.

/** OpenAI's base64 encoding of a vector: its float32 values, little-endian, as base64. */
export function float32Base64(values: number[]): string {
  const buf = Buffer.allocUnsafe(values.length * 4);
  for (let i = 0; i < values.length; i++) buf.writeFloatLE(values[i], i * 4);
  return buf.toString('base64');
}
