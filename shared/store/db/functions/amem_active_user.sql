-- amem_active_user: the account write fence inside one statement (docs/decisions/erasure.md). Holds
-- the user row FOR KEY SHARE until the statement's transaction ends and returns the id while the
-- account is active; otherwise raises SQLSTATE AM410, which the services answer with 410
-- account_deleted (shared/core/accounts/write-fence.ts). A write of one statement uses it as its user id
-- (`(select amem_active_user($1))`, an init plan evaluated once), so it commits before an erasure
-- begins or not at all, without a transaction of its own.
CREATE OR REPLACE FUNCTION amem_active_user(p_user uuid) RETURNS uuid LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM users u WHERE u.id = p_user AND u.state = 'active' FOR KEY SHARE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'account is not active' USING ERRCODE = 'AM410';
  END IF;
  RETURN p_user;
END
$$;
