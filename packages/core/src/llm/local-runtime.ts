import { open, stat } from '../async-fs.js';
import os from 'node:os';
import type { GgufFileInfo, Llama, LlamaModel } from 'node-llama-cpp';
import { formatBytes } from './local-models.js';
import type { ProviderFailure } from './types.js';

/**
 * node-llama-cpp, its Llama (the native binding) and the loaded models, each made once per process
 * and shared by every local client (a subagent reuses the session's weights). A file is checked
 * before llama.cpp sees it, so a wrong, cut or oversized file is one sentence, not a native error.
 */

export type NodeLlamaCpp = typeof import('node-llama-cpp');
export type GpuSetting = 'auto' | 'off';

let moduleLoad: Promise<NodeLlamaCpp> | undefined;
const llamas = new Map<GpuSetting, Promise<Llama>>();
const models = new Map<string, Promise<LlamaModel>>();
/** llama.cpp's own log lines at warning level and above, read when a load fails (never printed: core writes no stdout). */
const recentLogs: string[] = [];

const fail = (message: string): { failure: ProviderFailure } => ({ failure: { kind: 'model_not_found', message, retryable: false } });

export async function nodeLlamaCpp(): Promise<NodeLlamaCpp | { failure: ProviderFailure }> {
  moduleLoad ??= import('node-llama-cpp');
  try {
    return await moduleLoad;
  } catch (error) {
    moduleLoad = undefined;
    return fail(
      `The local provider needs the optional package node-llama-cpp, which is not installed or does not load here (${firstLine(error)}). Reinstall Beans with optional dependencies, or choose another provider with --provider.`,
    );
  }
}

export async function llamaFor(lib: NodeLlamaCpp, gpu: GpuSetting): Promise<Llama> {
  let pending = llamas.get(gpu);
  if (!pending) {
    pending = lib.getLlama({
      gpu: gpu === 'off' ? false : 'auto',
      // Only the prebuilt binaries that came from the npm registry: never a download or a compile at run time.
      build: 'never',
      skipDownload: true,
      progressLogs: false,
      logLevel: lib.LlamaLogLevel.warn,
      logger: (_level, message) => {
        recentLogs.push(message.trim());
        if (recentLogs.length > 50) recentLogs.shift();
      },
    });
    llamas.set(gpu, pending);
    pending.catch(() => llamas.delete(gpu));
  }
  return pending;
}

/** The checks that need no llama.cpp (so a wrong path or a text file fails before the native binding loads): the file's size. */
export async function checkModelFile(file: string): Promise<{ size: number } | { failure: ProviderFailure }> {
  let size: number;
  try {
    const stats = await stat(file);
    if (!stats.isFile()) return fail(`${file} is not a file: pass a .gguf model file to --model.`);
    size = stats.size;
  } catch {
    return fail(`There is no model file at ${file}. Pass an existing .gguf file to --model, or pull one with \`beans models pull\`.`);
  }
  const magic = Buffer.alloc(4);
  const handle = await open(file, 'r');
  try {
    await handle.read(magic, 0, 4, 0);
  } finally {
    await handle.close();
  }
  if (magic.toString('latin1') !== 'GGUF')
    return fail(`${file} is not a GGUF model file (it does not start with the GGUF signature); local models must be .gguf files.`);
  return { size };
}

/** What the header says, or the sentence that explains why the file cannot be a model. */
export async function inspectModelFile(
  lib: NodeLlamaCpp,
  llama: Llama,
  file: string,
  size: number,
): Promise<{ info: GgufFileInfo } | { failure: ProviderFailure }> {
  let info: GgufFileInfo;
  try {
    info = await lib.readGgufFileInfo(file, { readTensorInfo: true, ignoreKeys: [], logWarnings: false });
  } catch (error) {
    return fail(`${file} is a damaged or truncated GGUF file (${firstLine(error)}); download it again.`);
  }
  const tensors = info.fullTensorInfo ?? info.tensorInfo ?? [];
  const weights = lib.GgufInsights ? (await lib.GgufInsights.from(info, llama)).modelSize : 0;
  const dataStart = tensors.reduce((min, t) => Math.min(min, Number(t.fileOffset)), Number.POSITIVE_INFINITY);
  if (tensors.length > 0 && size < dataStart + weights) {
    return fail(
      `${file} is truncated: it holds ${formatBytes(size)} but its header describes ${formatBytes(dataStart + weights)}; download it again (\`beans models pull --force\`).`,
    );
  }
  const memory = os.totalmem();
  if (weights > memory * 0.9) {
    return fail(
      `${file} needs about ${formatBytes(weights)} of memory for its weights, more than this machine has (${formatBytes(memory)}); use a smaller model or a smaller quantization.`,
    );
  }
  return { info };
}

/** Loads (once) the model in `file`, already inspected; a llama.cpp refusal becomes a sentence. */
export async function loadModel(
  lib: NodeLlamaCpp,
  llama: Llama,
  file: string,
  info: GgufFileInfo,
  signal?: AbortSignal,
): Promise<LlamaModel | { failure: ProviderFailure }> {
  const key = `${llama.gpu}:${file}`;
  let pending = models.get(key);
  if (!pending) {
    recentLogs.length = 0;
    pending = llama.loadModel({ modelPath: file, ...(signal ? { loadSignal: signal } : {}) });
    models.set(key, pending);
    pending.catch(() => models.delete(key));
  }
  try {
    return await pending;
  } catch (error) {
    const architecture = String(info.metadata?.general?.architecture ?? '');
    const known: string[] = Object.values(((lib as unknown as Record<string, unknown>).GgufArchitectureType ?? {}) as Record<string, string>);
    const said = recentLogs.find((line) => /unknown model architecture|error loading model/i.test(line));
    if ((architecture && !known.includes(architecture)) || /unknown model architecture/i.test(said ?? '')) {
      return fail(
        `${file} is a "${architecture || 'unnamed'}" model, an architecture this version of llama.cpp does not know; use a model of a supported architecture (Llama, Qwen, Mistral, Gemma, Phi...).`,
      );
    }
    return fail(`llama.cpp could not load ${file}: ${said ?? firstLine(error)}.`);
  }
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0].replace(/\.$/, '');
}
