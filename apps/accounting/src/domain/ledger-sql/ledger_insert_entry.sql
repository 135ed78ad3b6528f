-- One posting stored in one round trip (decisions 97, 109, 125): what ledger-store.ts calls for a
-- single entry. First made by accounting_0008; this file is its definition in force.
create or replace function ledger_insert_entry(p_org bigint, p_lock text, p_tx jsonb, p_rows jsonb, p_taxes jsonb, p_accounts text[])
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
