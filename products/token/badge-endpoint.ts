import { z } from 'zod'
import type { ScoreBand } from './deployer-score.ts'
import { Address } from '../../core/endpoint/schemas.ts'
import { defineEndpoint } from '../../core/endpoint/types.ts'
import type { Uses } from '../../core/endpoint/deps.ts'

/** Typed by band so that a band renamed or added in core/domain must be given a colour here. */
const BAND_COLORS: Record<ScoreBand | 'unknown', string> = { elite: '#1a7f37', proven: '#2da44e', mixed: '#bf8700', weak: '#d1242f', poor: '#82071e', unknown: '#6e7781' }

function escapeXml(s: string): string {
  return s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!)
}

/** A flat two-part badge: "deployer" | "<band> <score>". */
export function renderBadge(band: ScoreBand | 'unknown', score: number | null): string {
  const right = score === null ? band : `${band} ${score}`
  const leftW = 62
  const rightW = 10 + right.length * 7
  const w = leftW + rightW
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="20" role="img" aria-label="deployer: ${escapeXml(right)}">`,
    `<title>deployer: ${escapeXml(right)}</title>`,
    `<rect width="${leftW}" height="20" fill="#555"/>`,
    `<rect x="${leftW}" width="${rightW}" height="20" fill="${BAND_COLORS[band]}"/>`,
    `<g fill="#fff" text-anchor="middle" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11">`,
    `<text x="${leftW / 2}" y="14">deployer</text>`,
    `<text x="${leftW + rightW / 2}" y="14">${escapeXml(right)}</text>`,
    `</g></svg>`,
  ].join('')
}

export const badgeEndpoint = defineEndpoint<Uses<'tokens'>>()({
  method: 'GET',
  path: '/badge/{token}',
  summary: 'Deployer badge',
  description: "An SVG badge (image/svg+xml) showing the score band and score of the token's deployer; 'unknown' when the deployer has no measured launches.",
  tags: ['token'],
  params: z.object({ token: Address }),
  response: z.string(),
  produces: 'image/svg+xml',
  access: { kind: 'free' },
  async handler({ params, deps }) {
    const deployer = (await deps.tokens.token(params.token))?.deployer
    const d = deployer ? await deps.tokens.deployer(deployer) : undefined
    return { raw: renderBadge(d?.band ?? 'unknown', d?.score ?? null), contentType: 'image/svg+xml; charset=utf-8' }
  },
})
