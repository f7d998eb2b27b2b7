-- A delivery row is written three times: inserted with its event, leased by a claim
-- (locked_until), and settled by the record of its attempt. The lease touches no
-- indexed column, so with room left on its page the new row version stays there
-- (a heap-only tuple) and none of the table's six indexes gets an entry; a full page
-- sends it elsewhere, with an entry in each. New pages keep 40% free for it.
ALTER TABLE deliveries SET (fillfactor = 60);
