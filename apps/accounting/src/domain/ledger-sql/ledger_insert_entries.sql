-- A batch of postings stored in one round trip (decision 111): what the consumer's batch calls.
-- First made by accounting_0008; this file is its definition in force.
create or replace function ledger_insert_entries(p_org bigint, p_entries jsonb)
returns jsonb language plpgsql as $fn$
declare
  v_entry jsonb;
  v_answers jsonb[] := '{}';
begin
  for v_entry in select e from jsonb_array_elements(p_entries) as e loop
    v_answers := v_answers || ledger_insert_entry(p_org, v_entry->>'lock', v_entry->'tx', v_entry->'rows', v_entry->'taxes',
                                                  array(select jsonb_array_elements_text(v_entry->'accounts')));
  end loop;
  return to_jsonb(v_answers);
end $fn$;
