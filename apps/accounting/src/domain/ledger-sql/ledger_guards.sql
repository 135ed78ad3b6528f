-- The ledger's guards: every entry balances (checked at commit), posted rows are never changed or
-- deleted, a transaction header changes only as a reversal marks it — except inside a rebuild's
-- transaction (ledger.rebuild), decision 214. First made by accounting_0001, their triggers
-- remade by accounting_0015; this file is their definition in force.
create or replace function ledger_check_balance() returns trigger language plpgsql as $fn$
declare
  tx bigint := coalesce(new.transaction_id, old.transaction_id);
  d numeric; c numeric;
begin
  select coalesce(sum(debit), 0), coalesce(sum(credit), 0) into d, c from ledger_rows where transaction_id = tx;
  if d <> c then
    raise exception 'accounting transaction % does not balance: debit % <> credit %', tx, d, c
      using errcode = '23514', constraint = 'ledger_balanced';
  end if;
  return null;
end $fn$;

create or replace function ledger_append_only() returns trigger language plpgsql as $fn$
begin
  if coalesce(current_setting('ledger.rebuild', true), '') = 'on' then
    return coalesce(new, old);
  end if;
  raise exception 'the ledger is append-only: % on % is refused', tg_op, tg_table_name using errcode = '55000';
end $fn$;

create or replace function accounting_transaction_guard() returns trigger language plpgsql as $fn$
begin
  if coalesce(current_setting('ledger.rebuild', true), '') = 'on' then
    return coalesce(new, old);
  end if;
  if tg_op = 'DELETE' then
    raise exception 'the ledger is append-only: accounting transactions are never deleted' using errcode = '55000';
  end if;
  if (to_jsonb(new) - 'accounting_status' - 'edited_at') <> (to_jsonb(old) - 'accounting_status' - 'edited_at') then
    raise exception 'the ledger is append-only: only accounting_status may change' using errcode = '55000';
  end if;
  return new;
end $fn$;

-- a constraint trigger cannot be replaced in place
drop trigger if exists ledger_balanced on ledger_rows;
create constraint trigger ledger_balanced after insert or update or delete on ledger_rows
  deferrable initially deferred for each row
  when (coalesce(current_setting('ledger.rebuild', true), '') <> 'on')
  execute function ledger_check_balance();
create or replace trigger ledger_rows_append_only before update or delete on ledger_rows
  for each row when (coalesce(current_setting('ledger.rebuild', true), '') <> 'on') execute function ledger_append_only();
create or replace trigger ledger_tax_rows_append_only before update or delete on ledger_tax_rows
  for each row when (coalesce(current_setting('ledger.rebuild', true), '') <> 'on') execute function ledger_append_only();
create or replace trigger accounting_transactions_guard before update or delete on accounting_transactions
  for each row when (coalesce(current_setting('ledger.rebuild', true), '') <> 'on') execute function accounting_transaction_guard();
