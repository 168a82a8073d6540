"""clickhouse-connect (PyPI, pinned in infra/python/requirements.txt) against the service's
/clickhouse door, as a data team would use it. Prints one JSON object: what each step answered.

usage: python clickhouse_connect_probe.py <host> <port> <key>
"""
import json
import sys

import clickhouse_connect
from clickhouse_connect.driver.exceptions import DatabaseError

host, port, key = sys.argv[1], int(sys.argv[2]), sys.argv[3]
out = {}

# Connecting runs the client's probes (version and timezone, the settings table, a Native probe).
client = clickhouse_connect.get_client(host=host, port=port, username="default", password=key, proxy_path="clickhouse")
out["server_version"] = client.server_version
out["blocks"] = client.query("SELECT count() AS n, max(number) AS top FROM chain_blocks").result_rows[0]
out["blocks"] = [int(x) for x in out["blocks"]]
out["command"] = client.command("SELECT 40 + 2")
out["parameterized"] = client.query("SELECT {n:UInt32} * 2 AS twice", parameters={"n": 21}).result_rows[0][0]
# A string with a quote, backslashes and non-ASCII letters, bound as a parameter, comes back as it went.
out["round_trip"] = client.query("SELECT {s:String} AS s", parameters={"s": "it's \\ a \\\\ ünïcødé \"q\""}).result_rows[0][0]
out["columns"] = client.query("SELECT * FROM chain_blocks ORDER BY number LIMIT 3").column_names


def refused(sql):
    try:
        client.query(sql)
        return None
    except DatabaseError as e:
        return str(e)


out["refused"] = {
    "write": refused("INSERT INTO chain_blocks SELECT * FROM chain_blocks LIMIT 1"),
    "ddl": refused("CREATE TABLE stolen (x UInt8) ENGINE = Memory"),
    "drop": refused("DROP TABLE chain_blocks"),
    "system": refused("SELECT * FROM system.tables"),
    "secret": refused("SELECT * FROM api_keys"),
}
print(json.dumps(out, default=str))
