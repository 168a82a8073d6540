-- The MCP connector (/mcp/account): OAuth clients registered by assistants, and the connection
-- tokens handed to them in exchange for a subscription key. A token is stored hashed and stands
-- for its key: revoking the key ends every connection made with it.
CREATE TABLE IF NOT EXISTS mcp_clients
(
    client_id     String,
    client_name   String,
    redirect_uris Array(String),
    created_at    DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(created_at)
ORDER BY client_id;

CREATE TABLE IF NOT EXISTS mcp_connections
(
    token_hash String,
    key_hash   String,
    client_id  String,
    created_at DateTime64(3, 'UTC'),
    expires_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(created_at)
ORDER BY token_hash;
