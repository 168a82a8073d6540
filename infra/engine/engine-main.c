/*
 * The ClickHouse engine process behind `svc engine` (infra/engine/engine-process.ts).
 *
 * libchdb.so (the chdb npm package's engine) exports clickhouse-local's one-shot entry point,
 * chdb_query_cmdline(argc, argv). Given --path, --http_port, --tcp_port and a query that runs
 * SYSTEM START LISTEN QUERIES ALL and then blocks, it serves ClickHouse's own HTTP and native
 * interfaces on that data dir for as long as the call runs. This program is only that call, in a
 * process of its own: the engine's listeners can share their process with nothing else.
 *
 * Exit: 0 when the call returned without an error (the blocking statement was killed: a clean
 * stop), 1 with the error on stderr otherwise. clickhouse-local prints most of its own errors to
 * stdout and returns no error, so the supervisor also keeps stdout and the engine's log files.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

typedef struct chdb_result chdb_result;
extern chdb_result *chdb_query_cmdline(int argc, char **argv);
extern const char *chdb_result_error(chdb_result *result);

int main(int argc, char **argv) {
  /* Die with the supervisor: an orphaned engine would keep serving and hold the data dir's lock. */
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  const char *parent = getenv("SVC_ENGINE_PARENT_PID");
  if (parent && atoi(parent) != (int)getppid()) {
    fprintf(stderr, "svc engine: the supervisor (pid %s) exited before the engine started\n", parent);
    return 2;
  }
  chdb_result *result = chdb_query_cmdline(argc, argv);
  const char *error = result ? chdb_result_error(result) : "chdb_query_cmdline returned no result";
  if (error && *error) {
    fprintf(stderr, "%s\n", error);
    return 1;
  }
  return 0;
}
