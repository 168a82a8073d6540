/**
 * Who may read which table through ad-hoc SQL, decided once. Every stored table of the schema
 * is in exactly one of the two lists (test/security/sql-door.test.ts fails on a table that
 * is in neither), so a new table is unreadable until someone decides it is the data team's.
 * The analyst door (/clickhouse), the operator's SQL (/admin/sql), docs/tables.md and the
 * analyst role on a cluster (infra/clickhouse/analyst-access.sql) all read these lists.
 */

/**
 * Secrets or customer data by key hash: key hashes, webhook signing secrets and their delivery
 * log, MCP connection tokens and registered clients, watchlists. Never readable through ad-hoc
 * SQL, the operator's included.
 */
export const SECRET_TABLES = ['api_keys', 'webhooks', 'webhook_deliveries', 'mcp_connections', 'mcp_clients', 'watchlists'] as const

/** The tables the data team reads: chain, social and derived data, and the pipeline's progress. */
export const ANALYST_TABLES = [
  'account_clusters', 'arc_activity_by_block', 'arc_balance_deltas', 'arc_deployer_venues', 'arc_first_pools', 'arc_launches',
  'arc_launches_by_block', 'arc_launches_by_deployer', 'arc_launches_by_symbol', 'arc_launches_by_via', 'arc_token_activity',
  'arc_venue_stats', 'basket_closes', 'block_times', 'call_grader_state', 'call_grades', 'call_grades_by_token', 'caller_changes',
  'caller_inputs_noted', 'caller_mirrors', 'caller_state', 'caller_state_progress', 'caller_stats', 'calls', 'calls_by_time',
  'calls_noted', 'chain_blocks', 'chain_reorgs', 'chain_totals', 'chain_traders', 'contract_creations', 'deployer_state',
  'erc20_transfers', 'fifo_hold_counts', 'fifo_sells', 'fifo_state', 'follow_events', 'follow_snapshots', 'forensics_results',
  'holder_balances', 'holder_deltas', 'launch_feed', 'launch_marks', 'launch_verdicts', 'launches', 'launches_by_time',
  'leaderboard_claims', 'liquidity_events', 'mention_hourly', 'mention_minute', 'mentions', 'mentions_by_capture', 'outcome_rollup',
  'pipeline_batches', 'pool_first_mint', 'pool_liquidity', 'pool_liquidity_minute', 'pool_providers', 'pool_reserves', 'pools',
  'price_candles', 'reorg_refresh_owed', 'scan_jobs', 'schema_migrations', 'serving_changes', 'serving_identity', 'snapshot_holdings', 'sol_usd_candles',
  'solana_fifo_state', 'solana_hold_counts', 'solana_progress', 'solana_trades', 'solana_universe', 'solana_wallet_activity',
  'structure_snapshots', 'swaps', 'swaps_by_token', 'tg_sightings', 'tg_token_stats', 'token_activity', 'token_block_activity',
  'token_last_swap', 'token_minute_activity', 'token_pools', 'token_real', 'token_real_noted', 'token_state', 'token_supply',
  'token_trader_first', 'token_wallet_links', 'transfers_by_token', 'transfers_by_wallet', 'wallet_legs',
] as const

const analyst = new Set<string>(ANALYST_TABLES)

/** Whether the data team may read this table of the service's database. */
export const isAnalystTable = (name: string): boolean => analyst.has(name)
