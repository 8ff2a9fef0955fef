import { deflateSync } from 'node:zlib'

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})
export const crc32 = (buf) => {
  let c = 0xffffffff
  for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}
const chunk = (type, data) => {
  const len = Buffer.alloc(4)
  len.writeUInt32BE(data.length)
  const td = Buffer.concat([Buffer.from(type), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(td))
  return Buffer.concat([len, td, crc])
}

/** A real PNG of w×h pixels of one colour (with optional padding bytes to reach a size). */
export function png(w = 4, h = 4, rgb = [200, 80, 120], padTo = 0) {
  const row = Buffer.concat([
    Buffer.from([0]),
    Buffer.from(Array.from({ length: w }, () => rgb).flat()),
  ])
  const raw = Buffer.concat(Array.from({ length: h }, () => row))
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(w, 0)
  ihdr.writeUInt32BE(h, 4)
  ihdr.set([8, 2, 0, 0, 0], 8)
  const parts = [
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
  ]
  const base = Buffer.concat([...parts, chunk('IEND', Buffer.alloc(0))])
  if (padTo <= base.length) return base
  // A private ancillary chunk carries the padding; the file stays a valid PNG.
  return Buffer.concat([
    ...parts,
    chunk('prVt', Buffer.alloc(padTo - base.length - 12)),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

/** A PNG whose header claims w×h pixels with one pixel of data: a decompression bomb. */
export function bombPng(w = 100_000, h = 100_000) {
  const bomb = png(1, 1)
  bomb.writeUInt32BE(w, 16)
  bomb.writeUInt32BE(h, 20)
  bomb.writeUInt32BE(crc32(bomb.subarray(12, 29)), 29)
  return bomb
}

/** A w×h PNG of noise: as costly to decode as a photo (it barely compresses). */
export function noisePng(w, h, random) {
  const row = w * 3 + 1
  const raw = random(row * h)
  for (let y = 0; y < h; y++) raw[y * row] = 0
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(w, 0)
  ihdr.writeUInt32BE(h, 4)
  ihdr.set([8, 2, 0, 0, 0], 8)
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  return Buffer.concat([
    signature,
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw, { level: 1 })),
    chunk('IEND', Buffer.alloc(0)),
  ])
}
