import { createRequire } from 'node:module'
import { PassThrough } from 'node:stream'
import * as PImage from 'pureimage'

/**
 * Chart screenshots for the /identify tests, drawn with pureimage (pure JavaScript) and the
 * DejaVu font from npm: a dark price chart with a candle-like line, the title line (pair or
 * venue) and the price label a trading screen shows.
 */
export interface ChartImageOptions {
  /** The title line, e.g. "LUDO / WETH  5m". */
  title?: string
  /** The price label, e.g. "0.00001234". */
  price?: string
  format?: 'png' | 'jpeg'
}

const require = createRequire(import.meta.url)
let fontReady: Promise<void> | undefined

function font(): Promise<void> {
  fontReady ??= PImage.registerFont(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf'), 'ChartFont').load()
  return fontReady
}

export async function renderChart(o: ChartImageOptions): Promise<Buffer> {
  await font()
  const img = PImage.make(900, 500)
  const ctx = img.getContext('2d')
  ctx.fillStyle = '#131722'
  ctx.fillRect(0, 0, 900, 500)
  // the price line, kept below the labels
  ctx.strokeStyle = '#26a69a'
  ctx.lineWidth = 3
  ctx.beginPath()
  ctx.moveTo(40, 470)
  for (let i = 1; i < 30; i++) ctx.lineTo(40 + i * 20, 470 - i * 5 - (i % 3) * 12)
  ctx.stroke()
  ctx.fillStyle = '#ffffff'
  if (o.title) {
    ctx.font = "30pt 'ChartFont'"
    ctx.fillText(o.title, 30, 60)
  }
  if (o.price) {
    ctx.font = "30pt 'ChartFont'"
    ctx.fillText(o.price, 30, 140)
  }
  const out = new PassThrough()
  const chunks: Buffer[] = []
  out.on('data', (c: Buffer) => chunks.push(c))
  const done = new Promise((r) => out.on('end', r))
  if (o.format === 'jpeg') await PImage.encodeJPEGToStream(img, out, 92)
  else await PImage.encodePNGToStream(img, out)
  await done
  return Buffer.concat(chunks)
}
