import { closeSync, openSync, readSync } from 'node:fs';
import { builtin } from './node-builtins.js';

/**
 * Randomness for ids that must be unique but are no secret: session ids, message uuids. Beans makes
 * such ids before its first request, and loading node:crypto for them cost ~4-7 ms of CPU of every
 * start. The bytes come from the operating system's random device, the source OpenSSL seeds
 * node:crypto from, so they are as unpredictable as crypto.randomBytes'; where it cannot be read
 * (Windows, a chroot without /dev), from node:crypto. Tokens, keys and temporary file names an
 * attacker could race keep calling node:crypto themselves.
 */

// Cleared after the first failed read, so a machine without the device pays for the failure once.
let deviceReadable = process.platform !== 'win32';

function randomBytes(size: number): Buffer {
  const bytes = Buffer.alloc(size);
  if (deviceReadable) {
    try {
      const fd = openSync('/dev/urandom', 'r');
      try {
        for (let filled = 0; filled < size;) {
          const read = readSync(fd, bytes, filled, size - filled, null);
          if (read === 0) throw new Error('/dev/urandom ended');
          filled += read;
        }
      } finally {
        closeSync(fd);
      }
      return bytes;
    } catch {
      deviceReadable = false;
    }
  }
  return builtin('node:crypto').randomFillSync(bytes);
}

/** `size` random bytes as lowercase hex (2 × size characters). */
export function randomHex(size: number): string {
  return randomBytes(size).toString('hex');
}

/** A random (version 4) RFC 4122 UUID, lowercase, like crypto.randomUUID(). */
export function randomUuid(): string {
  const bytes = randomBytes(16);
  bytes[6] = (bytes[6] & 0x0f) | 0x40; // version 4
  bytes[8] = (bytes[8] & 0x3f) | 0x80; // variant 10xx (RFC 4122)
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
