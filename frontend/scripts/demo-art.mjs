#!/usr/bin/env node
// Draws the demo catalogue's product illustrations (original SVG, one per product, matching its
// name and kind) into public/demo/products/. Run it after changing a drawing:
//   node frontend/scripts/demo-art.mjs
// The seed (supabase/seed.sql) points each demo product at its file.
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const out = join(dirname(fileURLToPath(import.meta.url)), '..', 'public', 'demo', 'products')

// A small seeded generator, so every run draws the same pictures.
function rng(seed) {
  let s = seed >>> 0
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0
    return s / 2 ** 32
  }
}
const f = (n) => Math.round(n * 10) / 10
const range = (n) => Array.from({ length: n }, (_, i) => i)

// ---- Flowers and greens -------------------------------------------------------------------
const stem = (x1, y1, x2, y2, w = 4, c = '#5a7657') =>
  `<path d="M${f(x1)} ${f(y1)} Q${f((x1 + x2) / 2 + (x2 - x1) * 0.15)} ${f((y1 + y2) / 2)} ${f(x2)} ${f(y2)}" stroke="${c}" stroke-width="${w}" fill="none" stroke-linecap="round"/>`
const leaf = (x, y, len, angle, c = '#6f8f6b') =>
  `<path d="M0 0 Q${f(len * 0.35)} ${f(-len * 0.28)} ${f(len)} 0 Q${f(len * 0.35)} ${f(len * 0.28)} 0 0Z" fill="${c}" transform="translate(${f(x)} ${f(y)}) rotate(${f(angle)})"/>`

function rose(x, y, r, c, dark) {
  const d = dark ?? shade(c, -0.25)
  return (
    `<g transform="translate(${f(x)} ${f(y)})"><circle r="${f(r)}" fill="${c}"/>` +
    `<path d="M${f(-r * 0.75)} ${f(r * 0.1)} Q0 ${f(r * 0.95)} ${f(r * 0.75)} ${f(r * 0.1)}" stroke="${d}" stroke-width="${f(r * 0.12)}" fill="none"/>` +
    `<path d="M${f(-r * 0.5)} ${f(-r * 0.1)} Q${f(-r * 0.1)} ${f(-r * 0.7)} ${f(r * 0.45)} ${f(-r * 0.25)}" stroke="${d}" stroke-width="${f(r * 0.1)}" fill="none"/>` +
    `<path d="M${f(-r * 0.25)} ${f(r * 0.2)} Q${f(r * 0.05)} ${f(-r * 0.35)} ${f(r * 0.3)} ${f(r * 0.15)}" stroke="${d}" stroke-width="${f(r * 0.1)}" fill="none"/>` +
    `<circle r="${f(r * 0.14)}" fill="${d}"/></g>`
  )
}

function tulip(x, y, r, c) {
  const d = shade(c, -0.2)
  return (
    `<g transform="translate(${f(x)} ${f(y)})">` +
    `<path d="M${f(-r)} ${f(-r * 0.6)} Q${f(-r * 1.05)} ${f(r * 0.9)} 0 ${f(r)} Q${f(r * 1.05)} ${f(r * 0.9)} ${f(r)} ${f(-r * 0.6)} L${f(r * 0.5)} ${f(-r * 0.1)} L0 ${f(-r * 0.85)} L${f(-r * 0.5)} ${f(-r * 0.1)}Z" fill="${c}"/>` +
    `<path d="M${f(-r * 0.45)} ${f(-r * 0.55)} Q0 ${f(r * 0.7)} ${f(r * 0.45)} ${f(-r * 0.55)}" fill="${d}" opacity="0.55"/></g>`
  )
}

function rayFlower(x, y, r, petal, center, count, width = 0.22) {
  const petals = range(count)
    .map(
      (i) =>
        `<ellipse cx="0" cy="${f(-r * 0.62)}" rx="${f(r * width)}" ry="${f(r * 0.42)}" fill="${petal}" transform="rotate(${f((360 / count) * i)})"/>`,
    )
    .join('')
  return `<g transform="translate(${f(x)} ${f(y)})">${petals}<circle r="${f(r * 0.3)}" fill="${center}"/></g>`
}
const daisy = (x, y, r, petal = '#ffffff', center = '#f3c66b') =>
  rayFlower(x, y, r, petal, center, 14, 0.14)
function gerbera(x, y, r, c) {
  return (
    rayFlower(x, y, r, c, shade(c, -0.35), 18, 0.13) +
    rayFlower(x, y, r * 0.62, shade(c, 0.15), '#5b3a1f', 12, 0.16)
  )
}
function sunflower(x, y, r) {
  const seeds = range(10)
    .map(
      (i) =>
        `<circle cx="${f(Math.cos(i * 2.4) * r * 0.22 * Math.sqrt(i / 10 + 0.1))}" cy="${f(Math.sin(i * 2.4) * r * 0.22 * Math.sqrt(i / 10 + 0.1))}" r="${f(r * 0.04)}" fill="#3d2614"/>`,
    )
    .join('')
  return `${rayFlower(x, y, r, '#f5c431', '#6b4423', 20, 0.16) + rayFlower(x, y, r * 0.8, '#e9a81c', '#6b4423', 16, 0.14)}<g transform="translate(${f(x)} ${f(y)})">${seeds}</g>`
}
function mum(x, y, r, c) {
  const rings = [1, 0.72, 0.45]
    .map((k, j) =>
      range(16 - j * 4)
        .map(
          (i) =>
            `<ellipse cx="0" cy="${f(-r * k * 0.6)}" rx="${f(r * 0.1)}" ry="${f(r * k * 0.38)}" fill="${shade(c, -0.08 * j)}" transform="rotate(${f((360 / (16 - j * 4)) * i + j * 9)})"/>`,
        )
        .join(''),
    )
    .join('')
  return `<g transform="translate(${f(x)} ${f(y)})">${rings}<circle r="${f(r * 0.12)}" fill="${shade(c, -0.3)}"/></g>`
}
function carnation(x, y, r, c) {
  const pts = range(24).map((i) => {
    const a = (Math.PI * 2 * i) / 24
    const rr = i % 2 ? r : r * 0.82
    return `${f(Math.cos(a) * rr)} ${f(Math.sin(a) * rr)}`
  })
  return `<g transform="translate(${f(x)} ${f(y)})"><path d="M${pts.join(' L')}Z" fill="${c}"/><circle r="${f(r * 0.55)}" fill="${shade(c, -0.12)}"/><circle r="${f(r * 0.25)}" fill="${shade(c, -0.22)}"/></g>`
}
function lily(x, y, r, c = '#ffffff') {
  const petals = range(6)
    .map(
      (i) =>
        `<path d="M0 0 Q${f(r * 0.3)} ${f(-r * 0.5)} 0 ${f(-r)} Q${f(-r * 0.3)} ${f(-r * 0.5)} 0 0Z" fill="${c}" stroke="#e6ddd0" stroke-width="1" transform="rotate(${i * 60 + (i % 2) * 5})"/>`,
    )
    .join('')
  const stamens = range(5)
    .map(
      (i) =>
        `<line x1="0" y1="0" x2="${f(Math.cos(i * 1.25) * r * 0.45)}" y2="${f(Math.sin(i * 1.25) * r * 0.45)}" stroke="#8a9a5b" stroke-width="1.5"/><circle cx="${f(Math.cos(i * 1.25) * r * 0.45)}" cy="${f(Math.sin(i * 1.25) * r * 0.45)}" r="2.2" fill="#b35b2a"/>`,
    )
    .join('')
  return `<g transform="translate(${f(x)} ${f(y)})">${petals}${stamens}</g>`
}
function orchid(x, y, r) {
  const side = (a) =>
    `<ellipse cx="0" cy="${f(-r * 0.5)}" rx="${f(r * 0.42)}" ry="${f(r * 0.52)}" fill="#ffffff" stroke="#e9e1ee" stroke-width="1" transform="rotate(${a})"/>`
  const sepal = (a) =>
    `<ellipse cx="0" cy="${f(-r * 0.55)}" rx="${f(r * 0.2)}" ry="${f(r * 0.45)}" fill="#fbf7fb" stroke="#e9e1ee" stroke-width="1" transform="rotate(${a})"/>`
  return (
    `<g transform="translate(${f(x)} ${f(y)})">${sepal(0)}${sepal(130)}${sepal(230)}${side(-70)}${side(70)}` +
    `<path d="M${f(-r * 0.2)} ${f(r * 0.05)} Q0 ${f(r * 0.55)} ${f(r * 0.2)} ${f(r * 0.05)} Q0 ${f(r * 0.2)} ${f(-r * 0.2)} ${f(r * 0.05)}Z" fill="#d66b9a"/><circle r="${f(r * 0.1)}" fill="#f3c66b"/></g>`
  )
}
function rosette(x, y, r, c) {
  const layers = [1, 0.75, 0.5, 0.28]
    .map((k, j) =>
      range(8)
        .map(
          (i) =>
            `<path d="M0 0 Q${f(r * k * 0.32)} ${f(-r * k * 0.6)} 0 ${f(-r * k)} Q${f(-r * k * 0.32)} ${f(-r * k * 0.6)} 0 0Z" fill="${shade(c, 0.1 * j)}" stroke="${shade(c, -0.25)}" stroke-width="0.8" transform="rotate(${f(i * 45 + j * 22)})"/>`,
        )
        .join(''),
    )
    .join('')
  return `<g transform="translate(${f(x)} ${f(y)})">${layers}</g>`
}
const berries = (x, y, n, rand, c = '#b3202d') =>
  range(n)
    .map(
      () =>
        `<circle cx="${f(x + (rand() - 0.5) * 30)}" cy="${f(y + (rand() - 0.5) * 24)}" r="${f(4 + rand() * 2)}" fill="${c}"/>`,
    )
    .join('')
function pineCone(x, y, s) {
  const scales = range(4)
    .map((j) =>
      range(3)
        .map(
          (i) =>
            `<path d="M${f((i - 1) * s * 0.3)} ${f((j - 1.5) * s * 0.35)} q${f(s * 0.15)} ${f(s * 0.2)} ${f(s * 0.3)} 0" stroke="#5b3a1f" stroke-width="1.5" fill="none"/>`,
        )
        .join(''),
    )
    .join('')
  return `<g transform="translate(${f(x)} ${f(y)}) rotate(-20)"><ellipse rx="${f(s * 0.5)}" ry="${f(s * 0.8)}" fill="#8a5a33"/>${scales}</g>`
}
function wheat(x1, y1, x2, y2) {
  const grains = range(7).map((i) => {
    const t = 0.55 + i * 0.065
    const gx = x1 + (x2 - x1) * t
    const gy = y1 + (y2 - y1) * t
    return `<ellipse cx="${f(gx - 4)}" cy="${f(gy)}" rx="3" ry="6" fill="#d9b45a" transform="rotate(-25 ${f(gx - 4)} ${f(gy)})"/><ellipse cx="${f(gx + 4)}" cy="${f(gy)}" rx="3" ry="6" fill="#c9a24a" transform="rotate(25 ${f(gx + 4)} ${f(gy)})"/>`
  })
  return stem(x1, y1, x2, y2, 2, '#c9a24a') + grains.join('')
}
function eucalyptus(x1, y1, x2, y2) {
  const coins = range(6).map((i) => {
    const t = 0.25 + i * 0.13
    return `<circle cx="${f(x1 + (x2 - x1) * t + (i % 2 ? 8 : -8))}" cy="${f(y1 + (y2 - y1) * t)}" r="7" fill="#9fb5a6"/>`
  })
  return stem(x1, y1, x2, y2, 2, '#6f8a7a') + coins.join('')
}
const statice = (x, y, rand, c = '#8f6bbf') =>
  range(9)
    .map(
      () =>
        `<circle cx="${f(x + (rand() - 0.5) * 26)}" cy="${f(y + (rand() - 0.5) * 20)}" r="${f(3 + rand() * 2)}" fill="${c}"/>`,
    )
    .join('')
const waxFlower = (x, y, rand) =>
  range(5)
    .map(() =>
      rayFlower(x + (rand() - 0.5) * 24, y + (rand() - 0.5) * 20, 6, '#f7e8ee', '#b04f6a', 5, 0.3),
    )
    .join('')
function cedar(x, y, angle) {
  const tips = range(5)
    .map(
      (i) =>
        `<path d="M${i * 10} 0 l8 -8 M${i * 10} 0 l8 8" stroke="#3f6b4a" stroke-width="3" stroke-linecap="round"/>`,
    )
    .join('')
  return `<g transform="translate(${f(x)} ${f(y)}) rotate(${angle})"><line x1="0" y1="0" x2="50" y2="0" stroke="#3f6b4a" stroke-width="3"/>${tips}</g>`
}

// ---- Containers ----------------------------------------------------------------------------
const wrap = (c = '#f3d7b6', ribbon = '#b04f6a') =>
  `<path d="M120 250 L200 385 L280 250 Q200 280 120 250Z" fill="${c}"/><path d="M150 262 L200 385 L182 265Z" fill="${shade(c, -0.12)}"/>` +
  `<path d="M170 322 q30 14 60 0" stroke="${ribbon}" stroke-width="8" fill="none" stroke-linecap="round"/><path d="M200 328 l-18 30 M200 328 l16 32" stroke="${ribbon}" stroke-width="5" stroke-linecap="round"/>`
const glassVase = () =>
  `<path d="M150 255 h100 l-12 125 h-76z" fill="#d8ecf1" opacity="0.9"/><path d="M156 300 h88 l-8 80 h-72z" fill="#a8d0dc" opacity="0.75"/><path d="M162 262 l6 112" stroke="#ffffff" stroke-width="5" opacity="0.7"/>`
const tallVase = () =>
  `<path d="M168 230 h64 l-6 155 h-52z" fill="#d8ecf1" opacity="0.9"/><path d="M172 280 h56 l-4 105 h-48z" fill="#a8d0dc" opacity="0.75"/><path d="M176 238 l4 140" stroke="#ffffff" stroke-width="4" opacity="0.7"/>`
const masonJar = () =>
  `<rect x="148" y="248" width="104" height="132" rx="16" fill="#dcefe9" opacity="0.9"/><rect x="152" y="290" width="96" height="86" rx="12" fill="#b3d8cf" opacity="0.7"/>` +
  `<rect x="144" y="240" width="112" height="18" rx="4" fill="#c9cfd1"/><path d="M150 268 q50 12 100 0" stroke="#a1866a" stroke-width="4" fill="none"/><path d="M198 270 l-10 22 M198 270 l10 22" stroke="#a1866a" stroke-width="3"/>`
const basket = () =>
  `<path d="M112 262 h176 l-20 110 h-136z" fill="#c9975c"/>` +
  range(5)
    .map(
      (i) =>
        `<path d="M${118 + i * 3} ${280 + i * 20} h${164 - i * 6}" stroke="#a8743d" stroke-width="4"/>`,
    )
    .join('') +
  range(8)
    .map(
      (i) =>
        `<path d="M${130 + i * 20} 264 l${-2 + i * 0.5} 106" stroke="#a8743d" stroke-width="3"/>`,
    )
    .join('') +
  `<path d="M124 264 Q200 150 276 264" stroke="#a8743d" stroke-width="8" fill="none"/>`
const pot = (c = '#c96f4a') =>
  `<path d="M140 290 h120 l-14 92 h-92z" fill="${c}"/><rect x="132" y="278" width="136" height="22" rx="5" fill="${shade(c, -0.12)}"/>`
const dish = () =>
  `<path d="M96 300 h208 q-10 62 -104 62 q-94 0 -104 -62z" fill="#a9a39a"/><ellipse cx="200" cy="300" rx="104" ry="14" fill="#8c867d"/>`
const lowBowl = (c = '#e9e4dc') =>
  `<path d="M110 292 h180 q-8 66 -90 66 q-82 0 -90 -66z" fill="${c}"/><ellipse cx="200" cy="292" rx="90" ry="12" fill="${shade(c, -0.1)}"/>`
const heartBox = () =>
  `<path d="M200 380 C120 330 96 292 110 262 C124 232 176 232 200 262 C224 232 276 232 290 262 C304 292 280 330 200 380Z" fill="#cf6a84"/>` +
  `<path d="M200 362 C136 322 118 296 128 272" stroke="#f5ccd5" stroke-width="4" fill="none"/>`

// ---- Helpers -------------------------------------------------------------------------------
function shade(hex, k) {
  const n = Number.parseInt(hex.slice(1), 16)
  const ch = (v) => Math.max(0, Math.min(255, Math.round(k < 0 ? v * (1 + k) : v + (255 - v) * k)))
  const [r, g, b] = [(n >> 16) & 255, (n >> 8) & 255, n & 255].map(ch)
  return `#${((r << 16) | (g << 8) | b).toString(16).padStart(6, '0')}`
}
/** Stems from the container's mouth to each bloom, then leaves, then the blooms. */
function bouquet(blooms, { from = [200, 270], leaves = 6, rand, leafColor = '#6f8f6b' }) {
  const stems = blooms.map((b) => stem(from[0] + (b.x - 200) * 0.15, from[1], b.x, b.y)).join('')
  const greens = range(leaves)
    .map((i) =>
      leaf(
        from[0] + (rand() - 0.5) * 40,
        from[1] - 10 - rand() * 30,
        50 + rand() * 25,
        -160 + (140 / Math.max(1, leaves - 1)) * i,
        i % 2 ? leafColor : shade(leafColor, 0.15),
      ),
    )
    .join('')
  return stems + greens + blooms.map((b) => b.draw).join('')
}
function svg(title, background, body) {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 400 400" role="img" aria-labelledby="t">\n` +
    `<title id="t">${title}</title>\n<rect width="400" height="400" fill="${background}"/>\n` +
    `<circle cx="200" cy="210" r="170" fill="#ffffff" opacity="0.45"/>\n${body}\n</svg>\n`
  )
}

// ---- The products --------------------------------------------------------------------------
const products = {
  'autumn-harvest-bouquet': [
    'Rust chrysanthemums, orange roses and wheat in a rustic wrap',
    '#f6e7d8',
    (rand) =>
      wheat(200, 270, 130, 110) +
      wheat(200, 270, 270, 105) +
      bouquet(
        [
          { x: 150, y: 175, draw: mum(150, 175, 34, '#b5522b') },
          { x: 250, y: 170, draw: mum(250, 170, 32, '#c8642d') },
          { x: 200, y: 140, draw: rose(200, 140, 28, '#ef8a3c') },
          { x: 200, y: 210, draw: rose(200, 210, 26, '#f0a05a') },
          { x: 120, y: 225, draw: rose(120, 225, 22, '#e77d34') },
          { x: 280, y: 225, draw: mum(280, 225, 26, '#9e4a26') },
        ],
        { rand },
      ) +
      wrap('#d9b48a', '#7a4a2a'),
  ],
  'winter-berry-centerpiece': [
    'White roses, cedar, pine cones and red winterberry in a low bowl',
    '#e7eef0',
    (rand) =>
      cedar(80, 250, -15) +
      cedar(270, 238, 15) +
      cedar(110, 228, -40) +
      cedar(240, 205, 40) +
      cedar(150, 200, -70) +
      lowBowl('#d8d2c8') +
      rose(150, 240, 28, '#fbfaf5', '#d9d2c4') +
      rose(250, 240, 28, '#fbfaf5', '#d9d2c4') +
      rose(200, 218, 32, '#ffffff', '#d9d2c4') +
      berries(108, 262, 8, rand) +
      berries(292, 262, 8, rand) +
      berries(200, 262, 6, rand) +
      berries(200, 180, 5, rand) +
      pineCone(128, 278, 22) +
      pineCone(272, 278, 22),
  ],
  'spring-tulip-jar': [
    'Mixed tulips in a mason jar tied with twine',
    '#fbeef0',
    (rand) =>
      bouquet(
        [
          ['#e4603f', 140, 140],
          ['#f5ccd5', 175, 110],
          ['#f7d154', 215, 120],
          ['#cf6a84', 250, 145],
          ['#ffffff', 200, 165],
          ['#b794d6', 160, 185],
          ['#e08ca0', 240, 190],
        ].map(([c, x, y]) => ({ x, y, draw: tulip(x, y, 20, c) })),
        { from: [200, 250], leaves: 4, rand, leafColor: '#7fa86f' },
      ) + masonJar(),
  ],
  'summer-sunflower-bundle': [
    'Sunflowers with solidago and eucalyptus, hand-tied',
    '#fdf3d8',
    (rand) =>
      eucalyptus(200, 270, 110, 150) +
      eucalyptus(200, 270, 290, 140) +
      statice(130, 200, rand, '#f2d13a') +
      statice(270, 195, rand, '#f2d13a') +
      bouquet(
        [
          { x: 200, y: 130, draw: sunflower(200, 130, 46) },
          { x: 140, y: 185, draw: sunflower(140, 185, 38) },
          { x: 262, y: 185, draw: sunflower(262, 185, 38) },
        ],
        { rand },
      ) +
      wrap('#e9d9b8', '#5a7657'),
  ],
  'pastel-dream': [
    'Blush roses, lisianthus and wax flower in a glass vase',
    '#fbeef3',
    (rand) =>
      waxFlower(130, 215, rand) +
      waxFlower(270, 210, rand) +
      bouquet(
        [
          { x: 200, y: 150, draw: rose(200, 150, 30, '#f5ccd5') },
          { x: 150, y: 185, draw: rose(150, 185, 26, '#f7d9de') },
          { x: 250, y: 185, draw: rose(250, 185, 26, '#efb9c6') },
          { x: 175, y: 125, draw: rayFlower(175, 125, 20, '#c9b3e0', '#8b6bb0', 6, 0.4) },
          { x: 235, y: 125, draw: rayFlower(235, 125, 20, '#e7dbf3', '#8b6bb0', 6, 0.4) },
          { x: 200, y: 220, draw: rose(200, 220, 24, '#fbe8ec') },
        ],
        { from: [200, 258], rand },
      ) +
      glassVase(),
  ],
  'classic-dozen-roses': [
    'Twelve long-stem red roses, hand-tied with greenery',
    '#f9e6e6',
    (rand) =>
      bouquet(
        [
          [200, 110],
          [165, 125],
          [235, 125],
          [135, 150],
          [265, 150],
          [185, 155],
          [220, 158],
          [150, 190],
          [250, 190],
          [200, 190],
          [175, 222],
          [228, 222],
        ].map(([x, y]) => ({ x, y, draw: rose(x, y, 21, '#c2323f', '#7e1c28') })),
        { rand, leaves: 8 },
      ) + wrap('#f3ece4', '#c2323f'),
  ],
  'garden-party': [
    'A loose garden mix of roses, daisies and sweet peas in a vase',
    '#eef4ea',
    (rand) =>
      bouquet(
        [
          { x: 200, y: 145, draw: rose(200, 145, 28, '#f08a4b') },
          { x: 145, y: 170, draw: daisy(145, 170, 26) },
          { x: 255, y: 168, draw: rose(255, 168, 24, '#f5ccd5') },
          { x: 170, y: 215, draw: carnation(170, 215, 20, '#e08ca0') },
          { x: 235, y: 215, draw: daisy(235, 215, 22, '#fff4c2') },
          { x: 120, y: 215, draw: rayFlower(120, 215, 16, '#b794d6', '#f3c66b', 5, 0.4) },
          { x: 285, y: 210, draw: rayFlower(285, 210, 16, '#6d8fd6', '#f3c66b', 5, 0.4) },
        ],
        { from: [200, 258], rand, leaves: 7 },
      ) + glassVase(),
  ],
  'utah-wildflower-mix': [
    'Daisies, purple statice and alstroemeria like a mountain meadow',
    '#eef0f7',
    (rand) =>
      statice(140, 150, rand) +
      statice(260, 150, rand) +
      statice(200, 120, rand) +
      bouquet(
        [
          { x: 165, y: 180, draw: daisy(165, 180, 26) },
          { x: 235, y: 178, draw: daisy(235, 178, 26) },
          { x: 200, y: 150, draw: daisy(200, 150, 22) },
          { x: 130, y: 215, draw: rayFlower(130, 215, 18, '#f08a4b', '#7a4a2a', 6, 0.35) },
          { x: 270, y: 212, draw: rayFlower(270, 212, 18, '#f5ccd5', '#b04f6a', 6, 0.35) },
        ],
        { rand },
      ) +
      wrap('#dfe6d3', '#8f6bbf'),
  ],
  'sunshine-daisies': [
    'Yellow and orange gerbera daisies in a vase',
    '#fdf4dc',
    (rand) =>
      bouquet(
        [
          { x: 200, y: 130, draw: gerbera(200, 130, 34, '#f7c331') },
          { x: 145, y: 170, draw: gerbera(145, 170, 30, '#f08a4b') },
          { x: 255, y: 168, draw: gerbera(255, 168, 30, '#f7d154') },
          { x: 175, y: 215, draw: gerbera(175, 215, 26, '#f3a23a') },
          { x: 232, y: 215, draw: gerbera(232, 215, 26, '#e4603f') },
        ],
        { from: [200, 258], rand },
      ) + glassVase(),
  ],
  'just-because': [
    'A cheerful mixed bouquet of roses, daisies and carnations',
    '#fdf0ea',
    (rand) =>
      bouquet(
        [
          { x: 200, y: 140, draw: carnation(200, 140, 24, '#e08ca0') },
          { x: 150, y: 175, draw: daisy(150, 175, 24, '#ffffff', '#f3c66b') },
          { x: 250, y: 175, draw: rose(250, 175, 24, '#f7d154') },
          { x: 175, y: 215, draw: rose(175, 215, 22, '#f08a4b') },
          { x: 228, y: 215, draw: carnation(228, 215, 20, '#b794d6') },
        ],
        { rand },
      ) + wrap('#f3d7b6', '#cf6a84'),
  ],
  'get-well-soon-basket': [
    'Bright gerberas and mums in a woven basket with a balloon',
    '#eaf3f6',
    (rand) =>
      `<path d="M300 170 Q306 120 318 92" stroke="#7d7d7d" stroke-width="1.5" fill="none"/><ellipse cx="322" cy="62" rx="30" ry="36" fill="#6d8fd6"/><path d="M314 44 q10 -8 18 4" stroke="#ffffff" stroke-width="4" fill="none" opacity="0.7"/>` +
      bouquet(
        [
          { x: 160, y: 205, draw: gerbera(160, 205, 28, '#f7c331') },
          { x: 240, y: 205, draw: gerbera(240, 205, 28, '#e4603f') },
          { x: 200, y: 180, draw: mum(200, 180, 26, '#f08a4b') },
          { x: 130, y: 240, draw: daisy(130, 240, 20) },
          { x: 270, y: 240, draw: carnation(270, 240, 18, '#e08ca0') },
        ],
        { from: [200, 265], rand, leaves: 5 },
      ) +
      basket(),
  ],
  'thank-you-posy': [
    'A small hand-tied posy of white and blush stems',
    '#f7f1ea',
    (rand) =>
      waxFlower(200, 160, rand) +
      bouquet(
        [
          { x: 200, y: 190, draw: rose(200, 190, 24, '#fbfaf5', '#d9d2c4') },
          { x: 165, y: 210, draw: rayFlower(165, 210, 18, '#f5ccd5', '#f3c66b', 5, 0.4) },
          { x: 235, y: 210, draw: daisy(235, 210, 18) },
        ],
        { from: [200, 270], rand, leaves: 4 },
      ) +
      `<path d="M190 268 L200 360 L210 268Z" fill="#5a7657"/><path d="M186 300 q14 8 28 0" stroke="#cf6a84" stroke-width="6" fill="none" stroke-linecap="round"/>`,
  ],
  'birthday-brights': [
    'Hot pink, orange and purple blooms with a birthday pick',
    '#fbeaf2',
    (rand) =>
      `<path d="M290 250 L300 120" stroke="#c9a24a" stroke-width="3"/><path d="M300 88 l9 20 22 2 -17 14 6 21 -20 -12 -20 12 6 -21 -17 -14 22 -2z" fill="#f7d154"/>` +
      bouquet(
        [
          { x: 200, y: 140, draw: gerbera(200, 140, 30, '#e23b7a') },
          { x: 145, y: 175, draw: rose(145, 175, 24, '#f08a4b') },
          { x: 250, y: 178, draw: carnation(250, 178, 22, '#8f4fc2') },
          { x: 180, y: 215, draw: carnation(180, 215, 20, '#e23b7a') },
          { x: 228, y: 218, draw: gerbera(228, 218, 22, '#f3a23a') },
        ],
        { from: [200, 258], rand },
      ) +
      glassVase(),
  ],
  'fiddle-leaf-fig': [
    'A tall fiddle leaf fig in a ceramic pot',
    '#edf3ea',
    () =>
      stem(200, 290, 200, 70, 7, '#6b4e34') +
      [
        [-1, 230, 60],
        [1, 210, 58],
        [-1, 180, 56],
        [1, 155, 52],
        [-1, 128, 50],
        [1, 104, 46],
        [0, 82, 40],
      ]
        .map(
          ([side, y, s]) =>
            `<g transform="translate(${200 + side * 6} ${y}) rotate(${side === 0 ? -90 : side * -35 - 90})"><path d="M0 0 C${f(s * 0.3)} ${f(-s * 0.55)} ${f(s * 1.1)} ${f(-s * 0.65)} ${f(s * 1.25)} 0 C${f(s * 1.1)} ${f(s * 0.65)} ${f(s * 0.3)} ${f(s * 0.55)} 0 0Z" fill="${side > 0 ? '#4f7a45' : '#3f6b3a'}"/><path d="M0 0 L${f(s * 1.15)} 0" stroke="#8fb07f" stroke-width="2"/></g>`,
        )
        .join('') +
      pot('#e8e1d6'),
  ],
  'peace-lily': [
    'A peace lily with glossy leaves and white blooms',
    '#eaf1ee',
    () =>
      [-70, -45, -20, 20, 45, 70, -5]
        .map(
          (a, i) =>
            `<g transform="translate(200 290) rotate(${a})"><path d="M0 0 Q-26 -70 0 -${130 + (i % 3) * 12} Q26 -70 0 0Z" fill="${i % 2 ? '#2f5e3a' : '#3d7048'}"/><path d="M0 -4 L0 -${120 + (i % 3) * 12}" stroke="#6f9a74" stroke-width="1.5"/></g>`,
        )
        .join('') +
      [
        [165, 135, -12],
        [235, 120, 10],
        [200, 100, 0],
      ]
        .map(
          ([x, y, a]) =>
            `${stem(200, 290, x, y + 40, 3)}<g transform="translate(${x} ${y}) rotate(${a})"><path d="M0 40 Q-24 10 0 -34 Q24 10 0 40Z" fill="#fbfaf5" stroke="#dfe6dc" stroke-width="1.5"/><rect x="-3" y="0" width="6" height="26" rx="3" fill="#e8dc9a"/></g>`,
        )
        .join('') +
      pot('#d9d2c4'),
  ],
  'succulent-garden': [
    'Five succulents in a shallow stoneware dish',
    '#f1efe9',
    () =>
      dish() +
      rosette(135, 262, 36, '#8fb3a0') +
      rosette(265, 262, 34, '#b59ac2') +
      rosette(200, 240, 44, '#9cc2a4') +
      rosette(165, 292, 28, '#c7b873') +
      rosette(238, 292, 30, '#7fa6b5'),
  ],
  'orchid-elegance': [
    'A double-stem white phalaenopsis orchid',
    '#f2eef5',
    () =>
      `<line x1="200" y1="300" x2="200" y2="90" stroke="#b7a27a" stroke-width="3"/>` +
      stem(196, 295, 150, 110, 3, '#6b7a4a') +
      stem(204, 295, 260, 125, 3, '#6b7a4a') +
      [
        [150, 112, 22],
        [170, 145, 24],
        [128, 150, 20],
        [258, 128, 22],
        [240, 165, 24],
        [280, 168, 20],
      ]
        .map(([x, y, r]) => orchid(x, y, r))
        .join('') +
      leaf(200, 296, 80, -150, '#3f6b3a') +
      leaf(200, 296, 80, -30, '#4f7a45') +
      pot('#ffffff'),
  ],
  'red-rose-romance': [
    'Two dozen red roses in a tall vase',
    '#f7e1e3',
    (rand) =>
      bouquet(
        [
          [5, 110],
          [6, 140],
          [7, 170],
          [6, 200],
        ]
          .flatMap(([n, y], row) =>
            range(n).map((i) => {
              const x = 200 + (i - (n - 1) / 2) * 34 + (row % 2 ? 0 : 4)
              return { x, y: y + Math.abs(i - (n - 1) / 2) * 6, draw: '' }
            }),
          )
          .map((p, i) => ({
            ...p,
            draw: rose(p.x, p.y, 19, i % 3 ? '#c2323f' : '#a82432', '#6e1722'),
          })),
        { from: [200, 232], rand, leaves: 8 },
      ) + tallVase(),
  ],
  'blushing-heart': [
    'Pink roses and carnations in a heart-shaped box',
    '#fbe9ee',
    () =>
      heartBox() +
      [
        [150, 262, 'r'],
        [200, 272, 'c'],
        [250, 262, 'r'],
        [128, 240, 'c'],
        [272, 240, 'c'],
        [175, 240, 'r'],
        [225, 240, 'r'],
        [200, 305, 'r'],
        [165, 292, 'c'],
        [235, 292, 'c'],
        [200, 232, 'c'],
      ]
        .sort((p, q) => p[1] - q[1])
        .map(([x, y, k]) =>
          k === 'r' ? rose(x, y, 22, '#efb9c6') : carnation(x, y, 20, '#e08ca0'),
        )
        .join(''),
  ],
  'prom-wrist-corsage': [
    'A spray-rose wrist corsage on a pearl band',
    '#f4eef7',
    () =>
      `<ellipse cx="200" cy="300" rx="120" ry="34" fill="none" stroke="#efe6d8" stroke-width="16"/>` +
      range(14)
        .map(
          (i) =>
            `<circle cx="${f(200 + Math.cos((i / 14) * Math.PI * 2) * 120)}" cy="${f(300 + Math.sin((i / 14) * Math.PI * 2) * 34)}" r="6" fill="#fbfaf5" stroke="#d9d2c4"/>`,
        )
        .join('') +
      leaf(200, 250, 70, -160) +
      leaf(200, 250, 70, -20) +
      leaf(200, 250, 60, -110, '#8fa88b') +
      rose(170, 235, 22, '#b794d6') +
      rose(230, 235, 22, '#b794d6') +
      rose(200, 215, 24, '#c9b3e0') +
      waxFlower(200, 255, rng(7)) +
      `<path d="M190 265 q-30 40 -20 70 M210 265 q30 40 20 70" stroke="#8f6bbf" stroke-width="5" fill="none" stroke-linecap="round"/>`,
  ],
  'classic-boutonniere': [
    'A single red rose boutonniere with a ribbon-wrapped stem and pin',
    '#f1ede6',
    () =>
      leaf(200, 200, 80, -125) +
      leaf(200, 200, 80, -55, '#8fa88b') +
      `<rect x="192" y="200" width="16" height="130" rx="6" fill="#f3ece4"/>` +
      range(6)
        .map((i) => `<path d="M192 ${212 + i * 20} l16 10" stroke="#d9cfc2" stroke-width="2"/>`)
        .join('') +
      rose(200, 170, 40, '#c2323f', '#7e1c28') +
      `<line x1="150" y1="260" x2="262" y2="232" stroke="#9aa1a6" stroke-width="3"/><circle cx="266" cy="231" r="7" fill="#fbfaf5" stroke="#9aa1a6"/>`,
  ],
  'peaceful-white-arrangement': [
    'White lilies, roses and stock in a low arrangement',
    '#eef1ee',
    (rand) =>
      leaf(200, 272, 110, -170) +
      leaf(200, 272, 110, -10, '#8fa88b') +
      leaf(200, 270, 80, -140) +
      leaf(200, 270, 80, -40) +
      lily(145, 230, 36) +
      lily(255, 228, 36) +
      rose(200, 215, 28, '#fbfaf5', '#d9d2c4') +
      rose(172, 252, 22, '#ffffff', '#d9d2c4') +
      rose(228, 252, 22, '#ffffff', '#d9d2c4') +
      statice(200, 175, rand, '#f4f1ea') +
      lowBowl('#cfd8cf'),
  ],
  'standing-spray-tribute': [
    'A standing easel spray of white and green blooms',
    '#eceff0',
    (rand) =>
      `<path d="M200 250 L150 392 M200 250 L250 392 M200 250 L200 392" stroke="#8a6a4a" stroke-width="6" stroke-linecap="round"/>` +
      range(7)
        .map((i) => leaf(200, 200, 95 + (i % 2) * 20, -180 + i * 30, i % 2 ? '#6f8f6b' : '#8fa88b'))
        .join('') +
      lily(130, 190, 28) +
      lily(270, 190, 28) +
      rose(200, 180, 30, '#fbfaf5', '#d9d2c4') +
      rose(165, 215, 22, '#ffffff', '#d9d2c4') +
      rose(235, 215, 22, '#ffffff', '#d9d2c4') +
      statice(200, 140, rand, '#e8efe0') +
      rayFlower(200, 235, 18, '#dfe8c9', '#9cb86b', 8, 0.3) +
      `<path d="M160 240 q40 30 80 0" stroke="#5a7657" stroke-width="8" fill="none" stroke-linecap="round"/>`,
  ],
  'remembrance-wreath': [
    'A wreath of white roses and greenery',
    '#eef0ec',
    () =>
      range(20)
        .map((i) => {
          const a = (i / 20) * 360
          return `<g transform="rotate(${a} 200 205)">${leaf(200, 95, 44, 150, i % 2 ? '#3f6b4a' : '#6f8f6b')}${leaf(200, 95, 40, 30, '#5a7657')}</g>`
        })
        .join('') +
      range(10)
        .map((i) => {
          const a = (i / 10) * Math.PI * 2
          return rose(200 + Math.cos(a) * 108, 205 + Math.sin(a) * 108, 20, '#fbfaf5', '#d9d2c4')
        })
        .join('') +
      `<path d="M200 318 l-26 56 M200 318 l26 56" stroke="#8f3d55" stroke-width="8" stroke-linecap="round"/><circle cx="200" cy="318" r="10" fill="#8f3d55"/>`,
  ],
}

mkdirSync(out, { recursive: true })
let n = 0
for (const [slug, [title, background, draw]] of Object.entries(products)) {
  writeFileSync(
    join(out, `${slug}.svg`),
    svg(title, background, draw(rng(slug.length * 7919 + slug.charCodeAt(0)))),
  )
  n++
}
console.log(`wrote ${n} drawings to ${out}`)
