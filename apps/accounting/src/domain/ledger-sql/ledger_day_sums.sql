-- The day sums the reports read (decision 215): every statement writing ledger rows appends its
-- sums as deltas; compact folds them into the balances; refresh sums an organisation again. First
-- made by accounting_0016; this file is their definition in force.
create or replace function ledger_rows_day_deltas() returns trigger language plpgsql as $fn$
begin
  if tg_op in ('DELETE', 'UPDATE') then
    insert into ledger_day_deltas (org_id, book_id, date_posting, gl_account_number, debit, credit, lines)
    select org_id, book_id, date_posting, gl_account_number, -sum(debit), -sum(credit), -count(*) from removed group by 1, 2, 3, 4;
  end if;
  if tg_op in ('INSERT', 'UPDATE') then
    insert into ledger_day_deltas (org_id, book_id, date_posting, gl_account_number, debit, credit, lines)
    select org_id, book_id, date_posting, gl_account_number, sum(debit), sum(credit), count(*) from added group by 1, 2, 3, 4;
  end if;
  return null;
end $fn$;
create or replace trigger ledger_rows_day_added after insert on ledger_rows
  referencing new table as added for each statement execute function ledger_rows_day_deltas();
create or replace trigger ledger_rows_day_removed after delete on ledger_rows
  referencing old table as removed for each statement execute function ledger_rows_day_deltas();
create or replace trigger ledger_rows_day_changed after update on ledger_rows
  referencing old table as removed new table as added for each statement execute function ledger_rows_day_deltas();

create or replace function ledger_day_balances_compact(p_limit int) returns int language plpgsql as $fn$
declare
  v_n int;
begin
  if not pg_try_advisory_xact_lock(hashtext('ledger_day_balances_compact')) then return 0; end if;
  with moved as (
    delete from ledger_day_deltas where id in (select id from ledger_day_deltas order by id limit p_limit)
    returning org_id, book_id, date_posting, gl_account_number, debit, credit, lines
  ), folded as (
    insert into ledger_day_balances as b (org_id, book_id, date_posting, gl_account_number, debit, credit, lines)
    select org_id, book_id, date_posting, gl_account_number, sum(debit), sum(credit), sum(lines) from moved group by 1, 2, 3, 4 order by 1, 2, 3, 4
    on conflict (org_id, book_id, date_posting, gl_account_number)
      do update set debit = b.debit + excluded.debit, credit = b.credit + excluded.credit, lines = b.lines + excluded.lines
    returning 1
  )
  select count(*) into v_n from moved;
  return v_n;
end $fn$;

create or replace function ledger_day_balances_refresh(p_org bigint) returns void language plpgsql as $fn$
begin
  lock table ledger_rows in share mode;
  perform pg_advisory_xact_lock(hashtext('ledger_day_balances_compact'));
  delete from ledger_day_deltas where org_id = p_org;
  delete from ledger_day_balances where org_id = p_org;
  insert into ledger_day_balances (org_id, book_id, date_posting, gl_account_number, debit, credit, lines)
  select org_id, book_id, date_posting, gl_account_number, sum(debit), sum(credit), count(*) from ledger_rows where org_id = p_org group by 1, 2, 3, 4;
end $fn$;
