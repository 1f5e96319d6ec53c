import { writeFileSync } from 'node:fs';

/**
 * A small GGUF v3 writer for tests: a tiny llama-architecture model with random weights and a
 * byte-level SentencePiece vocabulary (<unk>, <s>, </s>, the 256 byte tokens and "▁"), a few hundred KB,
 * which llama.cpp loads and runs like any model. Layout (llama.cpp's gguf.cpp): magic "GGUF", version
 * 3, tensor count and KV count as u64, the KV pairs, the tensor infos (name, dims, type, offset
 * relative to the data section), padding to `general.alignment` (32), then each tensor's data at its
 * aligned offset.
 */

const GGUF_MAGIC = 0x46554747; // "GGUF" read as a little-endian u32
const ALIGNMENT = 32;

// gguf_type values
const T = { UINT32: 4, INT32: 5, FLOAT32: 6, BOOL: 7, STRING: 8, ARRAY: 9, UINT64: 10 } as const;
// ggml_type values
const GGML_F32 = 0;

export type GgufValue =
  | { type: 'u32'; value: number }
  | { type: 'i32'; value: number }
  | { type: 'f32'; value: number }
  | { type: 'bool'; value: boolean }
  | { type: 'string'; value: string }
  | { type: 'strings'; value: readonly string[] }
  | { type: 'f32s'; value: readonly number[] }
  | { type: 'i32s'; value: readonly number[] };

export interface GgufTensor {
  name: string;
  /** ggml order: the first dimension is the contiguous one (llama.cpp's {n_embd, n_vocab}). */
  dims: readonly number[];
  data: Float32Array;
}

/** Bytes appended to a growing list of chunks. */
class Writer {
  private chunks: Buffer[] = [];
  length = 0;
  push(buffer: Buffer): void {
    this.chunks.push(buffer);
    this.length += buffer.length;
  }
  u32(n: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    this.push(b);
  }
  i32(n: number): void {
    const b = Buffer.alloc(4);
    b.writeInt32LE(n);
    this.push(b);
  }
  u64(n: number | bigint): void {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(n));
    this.push(b);
  }
  f32(n: number): void {
    const b = Buffer.alloc(4);
    b.writeFloatLE(n);
    this.push(b);
  }
  string(s: string): void {
    const bytes = Buffer.from(s, 'utf8');
    this.u64(bytes.length);
    this.push(bytes);
  }
  pad(to: number): void {
    const rest = (to - (this.length % to)) % to;
    if (rest) this.push(Buffer.alloc(rest));
  }
  buffer(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

function writeValue(w: Writer, value: GgufValue): void {
  switch (value.type) {
    case 'u32':
      w.u32(T.UINT32);
      w.u32(value.value);
      break;
    case 'i32':
      w.u32(T.INT32);
      w.i32(value.value);
      break;
    case 'f32':
      w.u32(T.FLOAT32);
      w.f32(value.value);
      break;
    case 'bool':
      w.u32(T.BOOL);
      w.push(Buffer.from([value.value ? 1 : 0]));
      break;
    case 'string':
      w.u32(T.STRING);
      w.string(value.value);
      break;
    case 'strings':
      w.u32(T.ARRAY);
      w.u32(T.STRING);
      w.u64(value.value.length);
      for (const s of value.value) w.string(s);
      break;
    case 'f32s':
      w.u32(T.ARRAY);
      w.u32(T.FLOAT32);
      w.u64(value.value.length);
      for (const n of value.value) w.f32(n);
      break;
    case 'i32s':
      w.u32(T.ARRAY);
      w.u32(T.INT32);
      w.u64(value.value.length);
      for (const n of value.value) w.i32(n);
      break;
  }
}

/**
 * A whole GGUF file from metadata and f32 tensors. `dataless`: only the header and tensor infos (the
 * caller extends the file, e.g. sparsely, to the size the infos declare).
 */
export function encodeGguf(metadata: Record<string, GgufValue>, tensors: readonly GgufTensor[], options: { dataless?: boolean } = {}): Buffer {
  const w = new Writer();
  w.u32(GGUF_MAGIC);
  w.u32(3);
  w.u64(tensors.length);
  const entries = Object.entries({ 'general.alignment': { type: 'u32', value: ALIGNMENT } as GgufValue, ...metadata });
  w.u64(entries.length);
  for (const [key, value] of entries) {
    w.string(key);
    writeValue(w, value);
  }
  let offset = 0;
  const offsets: number[] = [];
  for (const tensor of tensors) {
    const elements = tensor.dims.reduce((a, b) => a * b, 1);
    if (!options.dataless && elements !== tensor.data.length)
      throw new Error(`tensor ${tensor.name}: ${tensor.data.length} values for dims ${tensor.dims.join('x')}`);
    w.string(tensor.name);
    w.u32(tensor.dims.length);
    for (const d of tensor.dims) w.u64(d);
    w.u32(GGML_F32);
    w.u64(offset);
    offsets.push(offset);
    offset += Math.ceil((elements * 4) / ALIGNMENT) * ALIGNMENT;
  }
  w.pad(ALIGNMENT);
  if (options.dataless) return w.buffer();
  const dataStart = w.length;
  for (const [i, tensor] of tensors.entries()) {
    const at = dataStart + offsets[i];
    if (w.length < at) w.push(Buffer.alloc(at - w.length));
    w.push(Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength));
  }
  w.pad(ALIGNMENT);
  return w.buffer();
}

/** A deterministic pseudo-random generator (mulberry32), so every run writes the same model. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface TinyModelOptions {
  /** general.architecture; a name llama.cpp does not know makes a model it refuses. */
  architecture?: string;
  contextLength?: number;
  embedding?: number;
  layers?: number;
  heads?: number;
  feedForward?: number;
  seed?: number;
  /** tokenizer.chat_template, when the test wants one. */
  chatTemplate?: string;
  name?: string;
}

/** The byte-level vocabulary: <unk>, <s>, </s>, "<0x00>".."<0xFF>" (SentencePiece byte fallback) and "▁". */
function byteVocabulary(): { tokens: string[]; scores: number[]; types: number[] } {
  const tokens = ['<unk>', '<s>', '</s>'];
  const types = [2, 3, 3]; // UNKNOWN, CONTROL, CONTROL
  for (let b = 0; b < 256; b++) {
    tokens.push(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`);
    types.push(6); // BYTE
  }
  // SentencePiece writes a space as "▁"; with a token for it, text survives tokenize + detokenize.
  tokens.push('\u2581');
  types.push(1); // NORMAL
  return { tokens, scores: tokens.map(() => 0), types };
}

/** A tiny random llama model (about 300 KB with the defaults). */
export function tinyLlamaGguf(options: TinyModelOptions = {}): Buffer {
  const arch = options.architecture ?? 'llama';
  const n_embd = options.embedding ?? 64;
  const n_layer = options.layers ?? 2;
  const n_head = options.heads ?? 4;
  const n_ff = options.feedForward ?? 128;
  const vocab = byteVocabulary();
  const n_vocab = vocab.tokens.length;
  const next = random(options.seed ?? 42);
  const weights = (count: number, scale = 0.5): Float32Array => Float32Array.from({ length: count }, () => (next() * 2 - 1) * scale);
  const ones = (count: number): Float32Array => new Float32Array(count).fill(1);
  const tensors: GgufTensor[] = [
    { name: 'token_embd.weight', dims: [n_embd, n_vocab], data: weights(n_embd * n_vocab, 1) },
    { name: 'output_norm.weight', dims: [n_embd], data: ones(n_embd) },
    { name: 'output.weight', dims: [n_embd, n_vocab], data: weights(n_embd * n_vocab, 1) },
  ];
  for (let i = 0; i < n_layer; i++) {
    tensors.push(
      { name: `blk.${i}.attn_norm.weight`, dims: [n_embd], data: ones(n_embd) },
      { name: `blk.${i}.attn_q.weight`, dims: [n_embd, n_embd], data: weights(n_embd * n_embd) },
      { name: `blk.${i}.attn_k.weight`, dims: [n_embd, n_embd], data: weights(n_embd * n_embd) },
      { name: `blk.${i}.attn_v.weight`, dims: [n_embd, n_embd], data: weights(n_embd * n_embd) },
      { name: `blk.${i}.attn_output.weight`, dims: [n_embd, n_embd], data: weights(n_embd * n_embd) },
      { name: `blk.${i}.ffn_norm.weight`, dims: [n_embd], data: ones(n_embd) },
      { name: `blk.${i}.ffn_gate.weight`, dims: [n_embd, n_ff], data: weights(n_embd * n_ff) },
      { name: `blk.${i}.ffn_down.weight`, dims: [n_ff, n_embd], data: weights(n_ff * n_embd) },
      { name: `blk.${i}.ffn_up.weight`, dims: [n_embd, n_ff], data: weights(n_embd * n_ff) },
    );
  }
  const metadata: Record<string, GgufValue> = {
    'general.architecture': { type: 'string', value: arch },
    'general.name': { type: 'string', value: options.name ?? 'beans-tiny-test' },
    'general.file_type': { type: 'u32', value: 0 }, // all F32
    [`${arch}.context_length`]: { type: 'u32', value: options.contextLength ?? 2048 },
    [`${arch}.embedding_length`]: { type: 'u32', value: n_embd },
    [`${arch}.block_count`]: { type: 'u32', value: n_layer },
    [`${arch}.feed_forward_length`]: { type: 'u32', value: n_ff },
    [`${arch}.attention.head_count`]: { type: 'u32', value: n_head },
    [`${arch}.attention.head_count_kv`]: { type: 'u32', value: n_head },
    [`${arch}.attention.layer_norm_rms_epsilon`]: { type: 'f32', value: 1e-5 },
    [`${arch}.rope.dimension_count`]: { type: 'u32', value: n_embd / n_head },
    [`${arch}.vocab_size`]: { type: 'u32', value: n_vocab },
    'tokenizer.ggml.model': { type: 'string', value: 'llama' },
    'tokenizer.ggml.tokens': { type: 'strings', value: vocab.tokens },
    'tokenizer.ggml.scores': { type: 'f32s', value: vocab.scores },
    'tokenizer.ggml.token_type': { type: 'i32s', value: vocab.types },
    'tokenizer.ggml.bos_token_id': { type: 'u32', value: 1 },
    'tokenizer.ggml.eos_token_id': { type: 'u32', value: 2 },
    'tokenizer.ggml.unknown_token_id': { type: 'u32', value: 0 },
    'tokenizer.ggml.add_bos_token': { type: 'bool', value: true },
    'tokenizer.ggml.add_space_prefix': { type: 'bool', value: false },
    ...(options.chatTemplate ? { 'tokenizer.chat_template': { type: 'string', value: options.chatTemplate } as GgufValue } : {}),
  };
  return encodeGguf(metadata, tensors);
}

/** Writes the tiny model to `file` and returns the path. */
export function writeTinyModel(file: string, options: TinyModelOptions = {}): string {
  writeFileSync(file, tinyLlamaGguf(options));
  return file;
}
