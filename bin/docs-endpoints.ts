// `npm run docs:endpoints`: write docs/endpoints.md from the endpoint catalog.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { catalog } from '../api/catalog/index.ts'
import { renderEndpointTable } from '../api/catalog/endpoint-table.ts'

const target = join(import.meta.dirname, '../docs/endpoints.md')
writeFileSync(target, renderEndpointTable(catalog))
console.log(`wrote ${target}: ${catalog.length} endpoints`)
