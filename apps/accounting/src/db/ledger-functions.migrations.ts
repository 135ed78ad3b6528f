import { sqlMigration } from '@ledgerline/service-kit';

/**
 * The functions that store a posting in one round trip, version by version: each new version
 * came with a migration of its own, and the code called the new one from the same release. An
 * old version stays while a replica of the previous release may still call it, and goes one
 * release later (`accounting_0012`): the policy of every database function a service calls.
 */
export const ledgerFunctionMigrations = [
  sqlMigration(
    'accounting_0004_post_entry_function',
    `
-- Decimal columns of a row as JSON strings: to_jsonb keeps a numeric exact ("100.00"), but a
-- client parsing JSON would turn it into a double. Integers (ids, ord, versions) stay numbers.
create function ledger_json_row(r jsonb) returns jsonb language sql immutable as $fn$
  select coalesce(jsonb_object_agg(k, case when jsonb_typeof(v) = 'number' and position('.' in v::text) > 0 then to_jsonb(v::text) else v end), '{}')
    from jsonb_each(r) as e(k, v)
$fn$;

-- One posting of a source document in one round trip: the per-document lock, the version check,
-- the header, accounts an item names, the rows, the tax rows and the balance check. Every
-- statement here takes a fresh snapshot (read committed), so the version check sees what a
-- concurrent replica committed while this one waited for the lock. A newer version of a document
-- whose entry is posted answers {"replaces": id}: the caller reverses it (rare; kept in code).
-- Rows arrive with their column names; a tax row names its ledger row by "row_ord".
create function ledger_post_entry(p_org bigint, p_lock text, p_tx jsonb, p_rows jsonb, p_taxes jsonb, p_accounts text[])
returns jsonb language plpgsql as $fn$
declare
  v_source_type text := p_tx->>'source_type';
  v_source_id bigint := (p_tx->>'source_id')::bigint;
  v_version int := (p_tx->>'source_version')::int;
  v_latest record;
  v_tx accounting_transactions;
  v_rows jsonb;
  v_taxes jsonb;
  v_accounts jsonb;
begin
  perform pg_advisory_xact_lock(hashtext(p_lock));
  if p_tx->>'entry_kind' = 'posting' then
    select id, source_version, accounting_status into v_latest from accounting_transactions
     where org_id = p_org and source_type = v_source_type and source_id = v_source_id and entry_kind = 'posting'
     order by source_version desc limit 1;
    if found then
      if v_latest.source_version = v_version then return jsonb_build_object('skipped', 'duplicate'); end if;
      if v_latest.source_version > v_version then return jsonb_build_object('skipped', 'stale_version'); end if;
      if v_latest.accounting_status = 'posted' then return jsonb_build_object('replaces', v_latest.id); end if;
    end if;
  end if;
  insert into accounting_transactions
  select * from jsonb_populate_record(null::accounting_transactions,
    p_tx || jsonb_build_object('id', nextval(pg_get_serial_sequence('accounting_transactions', 'id')), 'org_id', p_org, 'created_at', now()))
  on conflict do nothing
  returning * into v_tx;
  if v_tx.id is null then return jsonb_build_object('skipped', 'duplicate'); end if;
  -- one order everywhere, so concurrent postings never deadlock on the chart
  insert into gl_accounts (org_id, number, name_cs, name_en)
  select p_org, n, 'Účet ' || n, 'Account ' || n from (select distinct unnest(p_accounts) as n) a order by n
  on conflict (org_id, number) do nothing;
  with r as (
    insert into ledger_rows
    select * from jsonb_populate_recordset(null::ledger_rows, (
      select jsonb_agg(x || jsonb_build_object('id', nextval(pg_get_serial_sequence('ledger_rows', 'id')), 'org_id', p_org, 'transaction_id', v_tx.id) order by i)
        from jsonb_array_elements(p_rows) with ordinality as e(x, i)))
    returning *
  ), t as (
    insert into ledger_tax_rows
    select * from jsonb_populate_recordset(null::ledger_tax_rows, (
      select jsonb_agg(x || jsonb_build_object('id', nextval(pg_get_serial_sequence('ledger_tax_rows', 'id')), 'org_id', p_org, 'transaction_id', v_tx.id, 'row_id', r.id) order by i)
        from jsonb_array_elements(p_taxes) with ordinality as e(x, i) join r on r.ord = (x->>'row_ord')::int))
    returning *
  )
  select (select jsonb_agg(ledger_json_row(to_jsonb(r)) order by r.ord) from r),
         (select coalesce(jsonb_agg(ledger_json_row(to_jsonb(t)) order by t.ord), '[]') from t)
    into v_rows, v_taxes;
  set constraints ledger_balanced immediate;
  set constraints ledger_balanced deferred;
  select coalesce(jsonb_agg(to_jsonb(a)), '[]') into v_accounts from gl_accounts a
   where a.org_id = p_org and a.number in (select x->>'gl_account_number' from jsonb_array_elements(p_rows || p_taxes) x);
  return jsonb_build_object('transaction', ledger_json_row(to_jsonb(v_tx)), 'rows', coalesce(v_rows, '[]'), 'tax_rows', v_taxes, 'accounts', v_accounts);
end $fn$;
`,
  ),
  sqlMigration(
    'accounting_0005_store_entry_answers_what_it_added',
    `
-- ledger_post_entry answered every stored row whole, each column passed through ledger_json_row
-- (jsonb_each and an aggregate per row, a query planned on every call) so decimals stayed exact
-- strings: about 0.55 of its 1.4 ms per posting (decision 109). The caller already holds what it
-- sent, so ledger_store_entry answers of each row only the columns the caller did not send — ids,
-- links, created_at, defaults — and the caller lays them over what it sent. Otherwise the same
-- function. ledger_post_entry stays for replicas still running the code that calls it.
create function ledger_store_entry(p_org bigint, p_lock text, p_tx jsonb, p_rows jsonb, p_taxes jsonb, p_accounts text[])
returns jsonb language plpgsql as $fn$
declare
  v_source_type text := p_tx->>'source_type';
  v_source_id bigint := (p_tx->>'source_id')::bigint;
  v_version int := (p_tx->>'source_version')::int;
  v_latest record;
  v_tx accounting_transactions;
  v_rows jsonb;
  v_taxes jsonb;
  v_accounts jsonb;
begin
  perform pg_advisory_xact_lock(hashtext(p_lock));
  if p_tx->>'entry_kind' = 'posting' then
    select id, source_version, accounting_status into v_latest from accounting_transactions
     where org_id = p_org and source_type = v_source_type and source_id = v_source_id and entry_kind = 'posting'
     order by source_version desc limit 1;
    if found then
      if v_latest.source_version = v_version then return jsonb_build_object('skipped', 'duplicate'); end if;
      if v_latest.source_version > v_version then return jsonb_build_object('skipped', 'stale_version'); end if;
      if v_latest.accounting_status = 'posted' then return jsonb_build_object('replaces', v_latest.id); end if;
    end if;
  end if;
  insert into accounting_transactions
  select * from jsonb_populate_record(null::accounting_transactions,
    p_tx || jsonb_build_object('id', nextval(pg_get_serial_sequence('accounting_transactions', 'id')), 'org_id', p_org, 'created_at', now()))
  on conflict do nothing
  returning * into v_tx;
  if v_tx.id is null then return jsonb_build_object('skipped', 'duplicate'); end if;
  -- one order everywhere, so concurrent postings never deadlock on the chart
  insert into gl_accounts (org_id, number, name_cs, name_en)
  select p_org, n, 'Účet ' || n, 'Account ' || n from (select distinct unnest(p_accounts) as n) a order by n
  on conflict (org_id, number) do nothing;
  with r as (
    insert into ledger_rows
    select * from jsonb_populate_recordset(null::ledger_rows, (
      select jsonb_agg(x || jsonb_build_object('id', nextval(pg_get_serial_sequence('ledger_rows', 'id')), 'org_id', p_org, 'transaction_id', v_tx.id) order by i)
        from jsonb_array_elements(p_rows) with ordinality as e(x, i)))
    returning *
  ), t as (
    insert into ledger_tax_rows
    select * from jsonb_populate_recordset(null::ledger_tax_rows, (
      select jsonb_agg(x || jsonb_build_object('id', nextval(pg_get_serial_sequence('ledger_tax_rows', 'id')), 'org_id', p_org, 'transaction_id', v_tx.id, 'row_id', r.id) order by i)
        from jsonb_array_elements(p_taxes) with ordinality as e(x, i) join r on r.ord = (x->>'row_ord')::int))
    returning *
  )
  -- of each row only what the caller did not send: ids, links, defaults (row n was sent as element n - 1)
  select (select jsonb_agg((to_jsonb(r) - array(select jsonb_object_keys(p_rows->(r.ord - 1)))) || jsonb_build_object('ord', r.ord) order by r.ord) from r),
         (select coalesce(jsonb_agg((to_jsonb(t) - array(select jsonb_object_keys(p_taxes->(t.ord - 1)))) || jsonb_build_object('ord', t.ord) order by t.ord), '[]') from t)
    into v_rows, v_taxes;
  set constraints ledger_balanced immediate;
  set constraints ledger_balanced deferred;
  select coalesce(jsonb_agg(to_jsonb(a)), '[]') into v_accounts from gl_accounts a
   where a.org_id = p_org and a.number in (select x->>'gl_account_number' from jsonb_array_elements(p_rows || p_taxes) x);
  return jsonb_build_object('transaction', to_jsonb(v_tx) - array(select jsonb_object_keys(p_tx)), 'rows', coalesce(v_rows, '[]'), 'tax_rows', v_taxes, 'accounts', v_accounts);
end $fn$;
`,
  ),
  sqlMigration(
    'accounting_0006_store_entries',
    `
-- The postings of a batch of events in one round trip (decision 111): each stored exactly as
-- ledger_store_entry stores one, in the order given (the caller sorts them by lock, so two
-- batches never wait for each other in a circle), answering an array of its answers. No exception
-- block: a posting that fails fails the batch, whose events the consumer then applies one by
-- one, so the batch takes no subtransaction per posting.
create function ledger_store_entries(p_org bigint, p_entries jsonb)
returns jsonb language plpgsql as $fn$
declare
  v_entry jsonb;
  v_answers jsonb[] := '{}';
begin
  for v_entry in select e from jsonb_array_elements(p_entries) as e loop
    v_answers := v_answers || ledger_store_entry(p_org, v_entry->>'lock', v_entry->'tx', v_entry->'rows', v_entry->'taxes',
                                                 array(select jsonb_array_elements_text(v_entry->'accounts')));
  end loop;
  return to_jsonb(v_answers);
end $fn$;
`,
  ),
  sqlMigration(
    'accounting_0007_postings_by_number',
    `
-- A credit finds the document it credits by id or by number. No index held the number, so the
-- lookup read every posting of the organisation's type: 85 ms for each credit note of an
-- organisation with 200,000 invoices, growing with the ledger (decision 112). With this index
-- the two conditions are two index lookups (0.1 ms).
-- (if not exists: an operator with a large ledger may build it beforehand with create index
-- concurrently, which a migration in a transaction cannot.)
create index if not exists accounting_transactions_posting_no on accounting_transactions (org_id, source_type, no)
  where entry_kind = 'posting' and no is not null;
`,
  ),
  sqlMigration(
    'accounting_0008_insert_entries',
    `
-- ledger_store_entry spent 0.5 of its 1.35 ms per posting (measured 2026-11-26, 400 postings per
-- run, alternated with variants) rebuilding each row as JSON with its id drawn from the
-- sequence by name, reading it back through jsonb_populate_recordset with select *, and
-- answering every stored row as JSON less the keys sent (decision 125). ledger_insert_entry does
-- the same work with each table's columns named: ids come from the columns' defaults, each row
-- is read from the sent JSON once, and the answer is only what the database chose (the
-- header's id and created_at, the rows' and tax rows' ids in the order sent). A column the sent
-- JSON lacks is stored null, as before. A column added to one of these tables must be added to
-- this function's lists (a test compares them with the tables). ledger_store_entry and
-- ledger_store_entries stay for replicas still running the code that calls them.
create function ledger_insert_entry(p_org bigint, p_lock text, p_tx jsonb, p_rows jsonb, p_taxes jsonb, p_accounts text[])
returns jsonb language plpgsql as $fn$
declare
  v_source_type text := p_tx->>'source_type';
  v_source_id bigint := (p_tx->>'source_id')::bigint;
  v_version int := (p_tx->>'source_version')::int;
  v_latest record;
  v_tx_id bigint;
  v_created_at timestamptz;
  v_row_ids jsonb;
  v_tax_row_ids jsonb;
  v_accounts jsonb;
begin
  perform pg_advisory_xact_lock(hashtext(p_lock));
  if p_tx->>'entry_kind' = 'posting' then
    select id, source_version, accounting_status into v_latest from accounting_transactions
     where org_id = p_org and source_type = v_source_type and source_id = v_source_id and entry_kind = 'posting'
     order by source_version desc limit 1;
    if found then
      if v_latest.source_version = v_version then return jsonb_build_object('skipped', 'duplicate'); end if;
      if v_latest.source_version > v_version then return jsonb_build_object('skipped', 'stale_version'); end if;
      if v_latest.accounting_status = 'posted' then return jsonb_build_object('replaces', v_latest.id); end if;
    end if;
  end if;
  insert into accounting_transactions (
      org_id, uid, book_id, type, source_type, source_id, source_version, entry_kind,
      source_event_id, reverses_id, accounting_status, no, vendor_doc_no, credited_doc_no,
      payment_reference, description, date_issued, date_due, date_posting, date_taxable,
      date_tax_applied, currency, legal_currency, precision, transaction_type, contact,
      bank_account, tax_nexus, paid_record, fx_rates, tax_deduction_ratio, net_deduction_ratio,
      amount_paid, amount_due, total
  )
  select p_org, x.uid, x.book_id, x.type, x.source_type, x.source_id, x.source_version, x.entry_kind,
    x.source_event_id, x.reverses_id, x.accounting_status, x.no, x.vendor_doc_no, x.credited_doc_no,
    x.payment_reference, x.description, x.date_issued, x.date_due, x.date_posting, x.date_taxable,
    x.date_tax_applied, x.currency, x.legal_currency, x.precision, x.transaction_type, x.contact,
    x.bank_account, x.tax_nexus, x.paid_record, x.fx_rates, x.tax_deduction_ratio,
    x.net_deduction_ratio, x.amount_paid, x.amount_due, x.total
    from jsonb_populate_record(null::accounting_transactions, p_tx) x
  on conflict do nothing
  returning id, created_at into v_tx_id, v_created_at;
  if v_tx_id is null then return jsonb_build_object('skipped', 'duplicate'); end if;
  -- one order everywhere, so concurrent postings never deadlock on the chart
  insert into gl_accounts (org_id, number, name_cs, name_en)
  select p_org, n, 'Účet ' || n, 'Account ' || n from (select distinct unnest(p_accounts) as n) a order by n
  on conflict (org_id, number) do nothing;
  with r as (
    insert into ledger_rows (
        org_id, transaction_id, book_id, ord, role, date_posting, gl_account_number, debit, credit,
        description, currency, payment_amount, payment_reference, contact, paid_record, fx_rates,
        tax_deduction_ratio, net_deduction_ratio
    )
    select p_org, v_tx_id, x.book_id, x.ord, x.role, x.date_posting, x.gl_account_number, x.debit, x.credit, x.description,
      x.currency, x.payment_amount, x.payment_reference, x.contact, x.paid_record, x.fx_rates,
      x.tax_deduction_ratio, x.net_deduction_ratio
      from jsonb_populate_recordset(null::ledger_rows, p_rows) x
    returning id, ord
  ), t as (
    insert into ledger_tax_rows (
        org_id, transaction_id, row_id, ord, gl_account_number, debit, credit, description,
        currency, tax_rate, tax_rate_rc, is_reverse_charge, tax_index, tax_code, tax_name,
        tax_base_in, tax_base_in_leg, tax_base_out, tax_base_out_leg, tax_amount_in,
        tax_amount_in_leg, tax_amount_claim, tax_amount_claim_leg, tax_amount_out,
        tax_amount_out_leg, tax_return_base_in, tax_return_base_out, tax_return_amount_claim,
        tax_return_amount_out, tax_control_statement, tax_eu_sales_report, tax_deduction_ratio,
        net_deduction_ratio
    )
    select p_org, v_tx_id, r.id, x.ord, x.gl_account_number, x.debit, x.credit, x.description, x.currency, x.tax_rate, x.tax_rate_rc,
      x.is_reverse_charge, x.tax_index, x.tax_code, x.tax_name, x.tax_base_in, x.tax_base_in_leg,
      x.tax_base_out, x.tax_base_out_leg, x.tax_amount_in, x.tax_amount_in_leg, x.tax_amount_claim,
      x.tax_amount_claim_leg, x.tax_amount_out, x.tax_amount_out_leg, x.tax_return_base_in,
      x.tax_return_base_out, x.tax_return_amount_claim, x.tax_return_amount_out,
      x.tax_control_statement, x.tax_eu_sales_report, x.tax_deduction_ratio, x.net_deduction_ratio
      from jsonb_array_elements(p_taxes) e(j)
      cross join lateral jsonb_populate_record(null::ledger_tax_rows, e.j) x
      join r on r.ord = (e.j->>'row_ord')::int
    returning id, ord
  )
  select (select jsonb_agg(id order by ord) from r), (select coalesce(jsonb_agg(id order by ord), '[]') from t)
    into v_row_ids, v_tax_row_ids;
  set constraints ledger_balanced immediate;
  set constraints ledger_balanced deferred;
  select coalesce(jsonb_agg(to_jsonb(a)), '[]') into v_accounts from gl_accounts a
   where a.org_id = p_org and a.number in (select x->>'gl_account_number' from jsonb_array_elements(p_rows || p_taxes) x);
  return jsonb_build_object('transaction', jsonb_build_object('id', v_tx_id, 'created_at', v_created_at),
                            'row_ids', coalesce(v_row_ids, '[]'), 'tax_row_ids', v_tax_row_ids, 'accounts', v_accounts);
end $fn$;

-- The postings of a batch, as ledger_store_entries stores them (decision 111), each by
-- ledger_insert_entry.
create function ledger_insert_entries(p_org bigint, p_entries jsonb)
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
`,
  ),
];
