import type { Picture } from './api.js';

// Pictures pasted or dropped into the message become attachments. A message travels as one JSON body
// of at most 1 MB (the server's limit), so a picture larger than that (a phone's photo) is scaled in
// the browser: at most 1568 px on its longest side (what the providers scale to anyway), as JPEG.

const PICTURE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];
/** Base64 bytes all pictures of one message may take, leaving room for the words. */
const PICTURE_BUDGET = 900_000;
const LONGEST_SIDE = 1568;

export interface Attachment extends Picture {
  name: string;
  /** For the preview: a blob: URL of the picture. */
  url: string;
}

/** The picture files among `files`, read (and scaled when too large) as attachments. */
export async function readPictures(files: Iterable<File>): Promise<Attachment[]> {
  const out: Attachment[] = [];
  for (const file of files) {
    if (!PICTURE_TYPES.includes(file.type)) continue;
    let blob: Blob = file;
    if (base64Length(file.size) > PICTURE_BUDGET / 2) blob = await scaled(file);
    out.push({ name: file.name || 'pasted picture', media_type: blob.type, data: await base64(blob), url: URL.createObjectURL(blob) });
  }
  return out;
}

const base64Length = (bytes: number) => Math.ceil(bytes / 3) * 4;

async function scaled(file: File): Promise<Blob> {
  const bitmap = await createImageBitmap(file);
  const ratio = Math.min(1, LONGEST_SIDE / Math.max(bitmap.width, bitmap.height));
  const canvas = document.createElement('canvas');
  canvas.width = Math.round(bitmap.width * ratio);
  canvas.height = Math.round(bitmap.height * ratio);
  canvas.getContext('2d')!.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  bitmap.close();
  for (const quality of [0.85, 0.7, 0.5]) {
    const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, 'image/jpeg', quality));
    if (blob && base64Length(blob.size) <= PICTURE_BUDGET / 2) return blob;
  }
  throw new Error(`${file.name || 'The picture'} is too large to send, even scaled down.`);
}

async function base64(blob: Blob): Promise<string> {
  const bytes = new Uint8Array(await blob.arrayBuffer());
  let binary = '';
  for (let index = 0; index < bytes.length; index += 0x8000) binary += String.fromCharCode(...bytes.subarray(index, index + 0x8000));
  return btoa(binary);
}
