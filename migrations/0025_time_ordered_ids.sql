-- Ids made by the database are time-ordered UUIDs (version 7, RFC 9562): the first 48
-- bits are the milliseconds since 1970, the rest random. Random (version 4) ids send
-- each insert to a random leaf of the primary key's B-tree, and each first touch of a
-- leaf after a checkpoint writes the whole page to the WAL: as the table grows, inserts
-- slow down. Time-ordered ids fill the rightmost leaves. They are still UUIDs, as the
-- API's ids must be. (PostgreSQL 18 has `uuidv7()`; 15 does not.)
CREATE FUNCTION uuid_v7() RETURNS uuid
LANGUAGE sql VOLATILE PARALLEL SAFE
AS $$
  SELECT encode(
           set_bit(set_bit(
             overlay(uuid_send(gen_random_uuid())
                     PLACING substring(int8send((extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
                     FROM 1 FOR 6),
             52, 1), 53, 1),
           'hex')::uuid
$$;
