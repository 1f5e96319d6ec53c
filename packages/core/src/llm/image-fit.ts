import type { ContentPart, DocumentPart, LlmMessage } from './types.js';

/** What one provider takes per picture: the longest side in pixels and the file's bytes (before base64). */
export interface ImageLimits {
  maxLongSide: number;
  maxBytes: number;
}

/** What one provider takes per PDF document; a provider without them reads documents' text. */
interface DocumentLimits {
  maxPages: number;
  maxBytes: number;
}

export interface MediaLimits {
  image: ImageLimits;
  document?: DocumentLimits;
}

type Image = Extract<ContentPart, { type: 'image' }>;

// One scaled copy per picture object: the history keeps the same part objects turn after turn, so a
// picture is scaled once a session, and the same bytes go out every turn (the cached prefix holds).
const fitted = new WeakMap<Image, Map<string, ContentPart>>();

/**
 * The messages with every picture within `limits`: one over them is scaled down with sharp (loaded
 * only then), keeping its format where that fits, else as JPEG. A picture that cannot be scaled (no
 * sharp for this platform, bytes it cannot decode) becomes one line saying so; its bytes are never
 * sent as text. Never throws.
 */
export function fitImages(messages: readonly LlmMessage[], limits: ImageLimits): Promise<LlmMessage[]> {
  return fitMedia(messages, { image: limits });
}

/**
 * fitImages, and each PDF document sent as the document where the provider takes documents and it is
 * within their pages and bytes, else as its extracted text (with a line saying why, past the limits).
 */
export async function fitMedia(messages: readonly LlmMessage[], limits: MediaLimits): Promise<LlmMessage[]> {
  if (!messages.some((message) => message.role !== 'assistant' && Array.isArray(message.content) && message.content.some((part) => part.type !== 'text')))
    return messages as LlmMessage[];
  const out: LlmMessage[] = [];
  for (const message of messages) {
    if (message.role === 'assistant' || typeof message.content === 'string') {
      out.push(message);
      continue;
    }
    const content: ContentPart[] = [];
    for (const part of message.content) {
      if (part.type === 'image') content.push(await fitImage(part, limits.image));
      else if (part.type === 'document') content.push(fitDocument(part, limits.document));
      else content.push(part);
    }
    out.push({ ...message, content });
  }
  return out;
}

function fitDocument(part: DocumentPart, limits: DocumentLimits | undefined): ContentPart {
  if (!limits) return { type: 'text', text: part.text };
  const bytes = Math.floor((part.data.length * 3) / 4);
  if (part.pages <= limits.maxPages && bytes <= limits.maxBytes) return part;
  const over =
    part.pages > limits.maxPages
      ? `${part.pages} pages, over the ${limits.maxPages} this provider reads as a document`
      : `over the ${megabytes(limits.maxBytes)} this provider reads as a document`;
  return { type: 'text', text: `[${part.name}: ${over}; its text follows]\n${part.text}` };
}

export async function fitImage(part: Image, limits: ImageLimits): Promise<ContentPart> {
  const key = `${limits.maxLongSide}x${limits.maxBytes}`;
  let byLimits = fitted.get(part);
  const known = byLimits?.get(key);
  if (known) return known;
  const result = await scaleIfNeeded(part, limits);
  if (!byLimits) fitted.set(part, (byLimits = new Map<string, ContentPart>()));
  byLimits.set(key, result);
  return result;
}

async function scaleIfNeeded(part: Image, limits: ImageLimits): Promise<ContentPart> {
  const bytes = Buffer.from(part.data, 'base64');
  let size: { width?: number; height?: number };
  try {
    const { imageSize } = await import('image-size');
    size = imageSize(bytes);
  } catch {
    size = {};
  }
  const longSide = Math.max(size.width ?? 0, size.height ?? 0);
  // A picture whose size cannot be read goes as it is while its bytes fit: the provider judges it.
  if (longSide <= limits.maxLongSide && bytes.length <= limits.maxBytes) return part;
  try {
    return await scale(bytes, part.mimeType, limits);
  } catch (error) {
    const why = (error as Error).message.split('\n')[0];
    return {
      type: 'text',
      text: `[picture left out: it is over what this provider takes (${limits.maxLongSide} px a side, ${megabytes(limits.maxBytes)}) and could not be scaled down: ${why}]`,
    };
  }
}

const megabytes = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(2).replace(/\.?0+$/, '')} MB`;

async function scale(bytes: Buffer, mimeType: string, limits: ImageLimits): Promise<Image> {
  const sharp = (await import('sharp')).default;
  // Pixel limit: sharp's default refusal of huge pictures (~268 megapixels) stays.
  let side = limits.maxLongSide;
  const sameFormat = mimeType === 'image/png' || mimeType === 'image/jpeg' || mimeType === 'image/webp';
  // Keep the format first (a screenshot stays a sharp-edged PNG), then JPEG at falling quality,
  // then fewer pixels: the first copy within the limits is the one sent.
  for (let round = 0; round < 6; round += 1) {
    const resized = () => sharp(bytes, { animated: false }).rotate().resize({ width: side, height: side, fit: 'inside', withoutEnlargement: true });
    if (round === 0 && sameFormat) {
      const out = await encode(resized(), mimeType);
      if (out.length <= limits.maxBytes) return { type: 'image', mimeType, data: out.toString('base64') };
    }
    for (const quality of [85, 70, 50]) {
      const out = await resized().flatten({ background: '#ffffff' }).jpeg({ quality, mozjpeg: true }).toBuffer();
      if (out.length <= limits.maxBytes) return { type: 'image', mimeType: 'image/jpeg', data: out.toString('base64') };
    }
    side = Math.floor(side * 0.7);
  }
  throw new Error('even a small copy was over the byte limit');
}

function encode(pipeline: import('sharp').Sharp, mimeType: string): Promise<Buffer> {
  if (mimeType === 'image/png') return pipeline.png().toBuffer();
  if (mimeType === 'image/webp') return pipeline.webp({ quality: 85 }).toBuffer();
  return pipeline.jpeg({ quality: 85, mozjpeg: true }).toBuffer();
}

/** The messages with each picture replaced by `line`, for a model that cannot see pictures; the count replaced. */
function withoutImages(messages: readonly LlmMessage[], line: string): { messages: LlmMessage[]; left: number } {
  let left = 0;
  const out = messages.map((message): LlmMessage => {
    if (message.role === 'assistant' || typeof message.content === 'string' || !message.content.some((part) => part.type === 'image')) return message;
    const content = message.content.map((part): ContentPart => {
      if (part.type !== 'image') return part;
      left += 1;
      return { type: 'text', text: line };
    });
    return { ...message, content };
  });
  return { messages: out, left };
}

/**
 * For a model that cannot see pictures: each becomes a line saying so, and the first time per model
 * (`told` remembers) a notice for the person.
 */
export function blindView(model: string, messages: readonly LlmMessage[], told: Set<string>, how: string): { messages: LlmMessage[]; notice?: string } {
  const blind = withoutImages(messages, `[a picture was left out: the model ${model} cannot see pictures]`);
  if (blind.left === 0 || told.has(model)) return { messages: blind.messages };
  told.add(model);
  return { messages: blind.messages, notice: `${model} cannot see pictures, so it got a line saying so in place of each (${blind.left} so far). ${how}` };
}
