// Hardhat 2 configuration for the local nodes started by `infra/hardhat/node.ts` (tests, local payments chain).
// Nothing is compiled here: the contracts come as compiled artifacts from npm packages.
// Settings come from the environment so one file serves every test run:
//   HARDHAT_CHAIN_ID        chain id (4663 unless set)
//   HARDHAT_ACCOUNTS        number of funded accounts (30 unless set)
//   HARDHAT_LOGGING         "true" to print every JSON-RPC call (quiet unless set)
//   HARDHAT_CACHE_DIR       where hardhat may write its cache (a temp dir from the harness)
//   HARDHAT_INITIAL_DATE    the first block's date (2025-01-01 unless set)
//   HARDHAT_WALL_CLOCK      "true": blocks mined in one second share its timestamp (one second per block unless set)
const os = require('node:os')
const path = require('node:path')

const chainId = Number(process.env.HARDHAT_CHAIN_ID ?? 4663)
const count = Number(process.env.HARDHAT_ACCOUNTS ?? 30)
const scratch = process.env.HARDHAT_CACHE_DIR ?? path.join(os.tmpdir(), 'svc-hardhat')

/** @type {import('hardhat/config').HardhatUserConfig} */
module.exports = {
  defaultNetwork: 'hardhat',
  networks: {
    hardhat: {
      chainId,
      mining: { auto: true, interval: 0 },
      // The well-known public test mnemonic: deterministic, funded, never a secret.
      accounts: {
        mnemonic: 'test test test test test test test test test test test junk',
        path: "m/44'/60'/0'/0",
        count,
        accountsBalance: '1000000000000000000000000', // 1,000,000 ETH each
      },
      loggingEnabled: process.env.HARDHAT_LOGGING === 'true',
      // Fixed start time unless told otherwise: block timestamps do not depend on the wall
      // clock's start (the payments chain starts at the wall clock: authorizations are timed).
      initialDate: process.env.HARDHAT_INITIAL_DATE ?? '2025-01-01T00:00:00Z',
      allowBlocksWithSameTimestamp: process.env.HARDHAT_WALL_CLOCK === 'true',
    },
  },
  paths: {
    root: __dirname,
    sources: path.join(scratch, 'contracts'),
    tests: path.join(scratch, 'tests'),
    cache: path.join(scratch, 'cache'),
    artifacts: path.join(scratch, 'artifacts'),
  },
}
