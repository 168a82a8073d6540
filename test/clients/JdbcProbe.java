import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The data team's BI tools as they connect: ClickHouse's official JDBC driver with its default
 * settings (compressed answers included) against the service's /clickhouse door. Run by
 * test/integration/clickhouse-jdbc.test.ts as `java -cp <driver jars> JdbcProbe.java URL KEY`;
 * prints one JSON object of what it saw.
 */
public class JdbcProbe {
  public static void main(String[] args) throws Exception {
    Properties props = new Properties();
    props.setProperty("user", "analyst");
    props.setProperty("password", args[1]);
    Map<String, Object> out = new LinkedHashMap<>();
    try (Connection conn = DriverManager.getConnection(args[0], props)) {
      DatabaseMetaData meta = conn.getMetaData();
      out.put("product", meta.getDatabaseProductName() + " " + meta.getDatabaseProductVersion());
      List<String> schemas = new ArrayList<>();
      try (ResultSet rs = meta.getSchemas()) {
        while (rs.next()) schemas.add(rs.getString("TABLE_SCHEM"));
      }
      out.put("schemas", schemas);
      List<String> tables = new ArrayList<>();
      try (ResultSet rs = meta.getTables(null, "default", "%", null)) {
        while (rs.next()) tables.add(rs.getString("TABLE_NAME"));
      }
      out.put("tables", tables);
      List<String> columns = new ArrayList<>();
      try (ResultSet rs = meta.getColumns(null, "default", "swaps", "%")) {
        while (rs.next()) columns.add(rs.getString("COLUMN_NAME") + ":" + rs.getString("TYPE_NAME"));
      }
      out.put("swaps_columns", columns);
      int types = 0;
      try (ResultSet rs = meta.getTypeInfo()) {
        while (rs.next()) types++;
      }
      out.put("type_count", types);

      try (Statement st = conn.createStatement();
          ResultSet rs = st.executeQuery("SELECT toUInt256('115792089237316195423570985008687907853269984665640564039457584007913129639935') AS top, count() AS n, max(number) AS head FROM chain_blocks")) {
        rs.next();
        out.put("uint256", rs.getBigDecimal("top").toBigInteger().toString());
        out.put("blocks", rs.getLong("n"));
        out.put("head", rs.getLong("head"));
      }
      try (PreparedStatement ps = conn.prepareStatement("SELECT ? AS s, toUInt256(?) AS u, count() AS n FROM chain_blocks WHERE number <= ?")) {
        ps.setString(1, "it's \\ a \"q\" ünïcødé");
        ps.setString(2, "123456789012345678901234567890123456789");
        ps.setLong(3, 10);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          out.put("prepared_string", rs.getString("s"));
          out.put("prepared_uint256", rs.getBigDecimal("u").toBigInteger().toString());
          out.put("prepared_count", rs.getLong("n"));
        }
      }
      out.put("write_refused", refusal(conn, "INSERT INTO chain_blocks SELECT * FROM chain_blocks LIMIT 1"));
      out.put("secret_refused", refusal(conn, "SELECT * FROM api_keys"));
      out.put("system_refused", refusal(conn, "SELECT * FROM system.users"));
    }
    // The driver's compressed requests (`decompress`: the query sent in ClickHouse's LZ4 blocks).
    props.setProperty("decompress", "true");
    try (Connection conn = DriverManager.getConnection(args[0], props);
        PreparedStatement ps = conn.prepareStatement("SELECT count() AS n, ? AS s FROM chain_blocks WHERE number <= 7")) {
      ps.setString(1, "compressed ünïcødé");
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        out.put("compressed_request", rs.getLong("n") + " " + rs.getString("s"));
      }
    }
    System.out.println(json(out));
  }

  /** The driver's message when a statement is refused (null when it ran). */
  static String refusal(Connection conn, String sql) {
    try (Statement st = conn.createStatement()) {
      st.execute(sql);
      return null;
    } catch (SQLException e) {
      return e.getMessage();
    }
  }

  static String json(Object v) {
    if (v == null) return "null";
    if (v instanceof Number) return v.toString();
    if (v instanceof Map<?, ?> m) {
      List<String> parts = new ArrayList<>();
      for (Map.Entry<?, ?> e : m.entrySet()) parts.add(json(String.valueOf(e.getKey())) + ":" + json(e.getValue()));
      return "{" + String.join(",", parts) + "}";
    }
    if (v instanceof List<?> l) {
      List<String> parts = new ArrayList<>();
      for (Object o : l) parts.add(json(o));
      return "[" + String.join(",", parts) + "]";
    }
    StringBuilder sb = new StringBuilder("\"");
    for (char c : v.toString().toCharArray()) {
      if (c == '"' || c == '\\') sb.append('\\').append(c);
      else if (c < 0x20) sb.append(String.format("\\u%04x", (int) c));
      else sb.append(c);
    }
    return sb.append('"').toString();
  }
}
