/**
 * The template that ships with the product for invoices and credit notes (architecture §7). It is a
 * Liquid template like any user template and is rendered through the same sandbox. Every value
 * is HTML-escaped by the engine; amounts come from the stored document and are only formatted.
 */
export const DEFAULT_TEMPLATE_CODE = 'default';

export const DEFAULT_TEMPLATE_HTML = `<!DOCTYPE html>
<html lang="{{ culture }}">
<head>
<meta charset="utf-8">
<title>{{ title }} {{ doc.no }}</title>
<style>
  * { box-sizing: border-box; }
  html { background: #eef0f3; }
  body { margin: 0; font-family: "DejaVu Sans", "Liberation Sans", Arial, Helvetica, sans-serif; font-size: 10pt; color: #1f2933; line-height: 1.4; }
  .page { width: 210mm; min-height: 297mm; margin: 12px auto; padding: 16mm 15mm; background: #fff; box-shadow: 0 1px 4px rgba(0,0,0,.15); }
  @media print {
    html { background: #fff; }
    .page { width: auto; min-height: 0; margin: 0; padding: 0; box-shadow: none; }
  }
  header { display: flex; justify-content: space-between; align-items: flex-start; border-bottom: 3px solid {{ brand.primary }}; padding-bottom: 8mm; margin-bottom: 8mm; }
  header .logo img { max-height: 22mm; max-width: 70mm; }
  header h1 { margin: 0; font-size: 22pt; font-weight: 700; color: {{ brand.primary }}; letter-spacing: .5px; }
  header .doc-no { font-size: 13pt; font-weight: 600; margin-top: 2mm; text-align: right; }
  header .doc-kind { font-size: 9pt; font-weight: 700; text-transform: uppercase; letter-spacing: 1px; color: {{ brand.secondary }}; text-align: right; margin-top: 1mm; }

  .parties { display: flex; gap: 10mm; margin-bottom: 8mm; }
  .party { flex: 1; padding: 4mm 5mm; border-radius: 2mm; background: #f6f7f9; }
  .party h2, .meta h2, .payment h2, .recap h2 { margin: 0 0 2mm; font-size: 8pt; text-transform: uppercase; letter-spacing: 1px; color: {{ brand.secondary }}; font-weight: 700; }
  .party .name { font-size: 11.5pt; font-weight: 700; margin-bottom: 1mm; }
  .party .ids { margin-top: 2mm; font-size: 9pt; color: #52606d; }
  .meta { display: grid; grid-template-columns: repeat(3, 1fr); gap: 3mm 8mm; margin-bottom: 8mm; }
  .meta .label { font-size: 8pt; color: #52606d; }
  .meta .value { font-weight: 600; }
  table { width: 100%; border-collapse: collapse; }
  table.lines th { text-align: left; font-size: 8pt; text-transform: uppercase; letter-spacing: .5px; color: #52606d; border-bottom: 1.5px solid #9aa5b1; padding: 2mm 2mm; }
  table.lines td { padding: 2.2mm 2mm; border-bottom: 1px solid #e4e7eb; vertical-align: top; }
  table.lines td.num, table.lines th.num, table.recap td.num, table.recap th.num { text-align: right; white-space: nowrap; }
  table.lines .desc { font-size: 8.5pt; color: #616e7c; }
  .bottom { display: flex; gap: 10mm; margin-top: 7mm; align-items: flex-start; }
  .bottom .left { flex: 1; }
  .bottom .right { width: 78mm; }
  table.recap th { text-align: left; font-size: 8pt; color: #52606d; border-bottom: 1px solid #9aa5b1; padding: 1.5mm 1mm; font-weight: 600; }
  table.recap td { padding: 1.5mm 1mm; border-bottom: 1px solid #e4e7eb; }
  .recap-leg { margin-top: 5mm; }
  table.recap tr.total td { font-weight: 600; border-bottom: none; }
  .fx-rate { margin-top: 1.5mm; font-size: 8pt; color: #52606d; }
  table.totals td { padding: 1.6mm 0; }
  table.totals td.num { text-align: right; white-space: nowrap; }
  table.totals tr.grand td { border-top: 2px solid {{ brand.primary }}; font-size: 13pt; font-weight: 700; padding-top: 2.5mm; }
  table.totals tr.due td { font-weight: 700; color: {{ brand.primary }}; }
  .payment { margin-top: 7mm; padding: 4mm 5mm; border-left: 3px solid {{ brand.primary }}; background: #f6f7f9; }
  .payment dl { display: grid; grid-template-columns: max-content 1fr; gap: 1mm 6mm; margin: 0; }
  .payment dt { color: #52606d; }
  .payment dd { margin: 0; font-weight: 600; }
  .payment { overflow: hidden; }
  .payment-qr { float: right; margin: 0 0 0 6mm; text-align: center; }
  .payment-qr img { width: 32mm; height: 32mm; display: block; image-rendering: pixelated; }
  .payment-qr figcaption { font-size: 7.5pt; color: #52606d; margin-top: 1mm; }
  .notes { margin-top: 6mm; white-space: pre-line; color: #3e4c59; }
  footer { margin-top: 10mm; padding-top: 3mm; border-top: 1px solid #e4e7eb; font-size: 8pt; color: #7b8794; white-space: pre-line; }
  /* on paper the sections sit closer, so a short document (a few lines, notes, a legal footer)
     keeps to one page; a long one repeats the table header and never splits a line or the totals */
  @media print {
    header { padding-bottom: 5mm; margin-bottom: 5mm; }
    .parties, .meta { margin-bottom: 5mm; }
    .bottom, .payment { margin-top: 5mm; }
    .notes { margin-top: 4mm; }
    footer { margin-top: 6mm; }
    table.lines td { padding: 1.6mm 2mm; }
    table.lines thead { display: table-header-group; }
    table.lines tr, .bottom, .payment { break-inside: avoid; }
    /* printed, the legal line stands in every page's bottom margin (below), not once at the end */
    footer .legal { display: none; }
    footer { border-top: 0; padding-top: 0; }
    /* with nothing else in it, the footer is not printed at all: its empty line and margin alone
       pushed a full page onto a second, blank one */
    footer.legal-only { display: none; }
    .recap-leg { margin-top: 4mm; }
  }
  /* the organisation's legal line (court register entry) at the foot of every printed page */
  {% if org.info_legal %}@page { @bottom-left { content: "{{ org.info_legal | css_string }}"; font-family: "DejaVu Sans", "Liberation Sans", Arial, sans-serif; font-size: 7pt; color: #7b8794; vertical-align: top; padding-top: 3mm; white-space: pre-wrap; } }{% endif %}
</style>
</head>
<body>
{% comment %} a credit note's balance is owed to the customer: "to be refunded", never "amount due" {% endcomment %}
{% if document_type == 'credit_note' %}{% assign due_label = 'amount_to_refund' %}{% else %}{% assign due_label = 'amount_due' %}{% endif %}
<div class="page">
  <header>
    <div class="logo">
      {% if org.config.logo contains 'data:image/' %}<img src="{{ org.config.logo }}" alt="">{% else %}<div class="party name" style="padding:0;background:none;font-size:14pt;font-weight:700">{{ org.name }}</div>{% endif %}
    </div>
    <div>
      <h1>{{ title }}</h1>
      {% comment %} a VAT payer's invoice says it is a tax document, as Czech and Slovak law expect {% endcomment %}
      {% if document_type == 'advance_tax_document' and doc.proforma_no %}<div class="doc-kind">{{ 'proforma_no' | t }} {{ doc.proforma_no }}</div>{% endif %}
      {% if document_type == 'invoice' and org.is_vat_payer %}<div class="doc-kind">{{ 'tax_document' | t }}</div>{% endif %}
      <div class="doc-no">{{ 'document_no' | t }} {{ doc.no }}</div>
    </div>
  </header>

  <section class="parties">
    <div class="party supplier">
      <h2>{{ 'supplier' | t }}</h2>
      <div class="name">{{ org.name }}</div>
      {% assign a = org.address %}
      {% if a.address1 %}<div>{{ a.address1 }}</div>{% endif %}
      {% if a.address2 %}<div>{{ a.address2 }}</div>{% endif %}
      {% if a.postal_code or a.city %}<div>{{ a.postal_code }} {{ a.city }}</div>{% endif %}
      {% if a.country %}<div>{{ a.country }}</div>{% endif %}
      <div class="ids">
        {% if org.reg_no %}<div>{{ 'reg_no' | t }}: {{ org.reg_no }}</div>{% endif %}
        {% if org.vat_no %}<div>{{ 'vat_no' | t }}: {{ org.vat_no }}</div>{% endif %}
        {% if org.tax_no %}<div>{{ 'tax_no' | t }}: {{ org.tax_no }}</div>{% endif %}
        {% if org.email %}<div>{{ org.email }}</div>{% endif %}
        {% if org.phone %}<div>{{ org.phone }}</div>{% endif %}
      </div>
    </div>
    <div class="party customer">
      <h2>{{ 'customer' | t }}</h2>
      <div class="name">{{ customer.business_name | default: customer.display_name }}</div>
      {% assign b = doc.billing_address | default: customer.address %}
      {% if b.company and b.company != customer.business_name %}<div>{{ b.company }}</div>{% endif %}
      {% if b.name %}<div>{{ b.name }}</div>{% endif %}
      {% if b.address1 %}<div>{{ b.address1 }}</div>{% endif %}
      {% if b.address2 %}<div>{{ b.address2 }}</div>{% endif %}
      {% if b.postal_code or b.city %}<div>{{ b.postal_code }} {{ b.city }}</div>{% endif %}
      {% if b.country %}<div>{{ b.country }}</div>{% endif %}
      <div class="ids">
        {% if customer.reg_no %}<div>{{ 'reg_no' | t }}: {{ customer.reg_no }}</div>{% endif %}
        {% if customer.vat_no %}<div>{{ 'vat_no' | t }}: {{ customer.vat_no }}</div>{% endif %}
        {% if customer.tax_no %}<div>{{ 'tax_no' | t }}: {{ customer.tax_no }}</div>{% endif %}
      </div>
    </div>
  </section>

  <section class="meta">
    <div><div class="label">{{ 'date_issued' | t }}</div><div class="value">{{ doc.date_issued | format_date }}</div></div>
    {% if doc.date_taxable %}<div><div class="label">{{ 'date_taxable' | t }}</div><div class="value">{{ doc.date_taxable | format_date }}</div></div>{% endif %}
    {% if doc.date_due %}<div><div class="label">{{ 'date_due' | t }}</div><div class="value">{{ doc.date_due | format_date }}</div></div>{% endif %}
    {% if doc.credited_doc_no %}<div><div class="label">{{ 'credited_doc_no' | t }}</div><div class="value credited-doc-no">{{ doc.credited_doc_no }}</div></div>{% endif %}
    {% if doc.delivery_condition.code %}<div><div class="label">{{ 'delivery_condition' | t }}</div><div class="value">{{ doc.delivery_condition.code }} {{ doc.delivery_condition.name }}</div></div>{% endif %}
  </section>

  <table class="lines">
    <thead>
      <tr>
        <th>{{ 'item' | t }}</th>
        <th class="num">{{ 'qty' | t }}</th>
        <th class="num">{{ 'rate' | t }}</th>
        <th class="num">{{ 'tax_rate' | t }}</th>
        <th class="num">{{ 'amount' | t }}</th>
      </tr>
    </thead>
    <tbody>
      {% for line in doc.items %}
      <tr>
        <td><div class="title">{{ line.title | default: line.item.name }}</div>{% if line.description %}<div class="desc">{{ line.description }}</div>{% endif %}</td>
        <td class="num">{{ line.qty | number }} {{ line.unit.symbol | default: line.unit.code }}</td>
        <td class="num">{{ line.rate | money }}</td>
        <td class="num">{% for tx in line.taxes %}{{ tx.tax_rate | percent }}{% unless forloop.last %}, {% endunless %}{% endfor %}</td>
        <td class="num">{{ line.amount | money }}</td>
      </tr>
      {% endfor %}
      {% for s in doc.shipping_charges %}
      <tr>
        <td><div class="title">{{ s.title | default: labels.shipping }}</div></td>
        <td class="num"></td>
        <td class="num"></td>
        <td class="num">{% for tx in s.taxes %}{{ tx.tax_rate | percent }}{% unless forloop.last %}, {% endunless %}{% endfor %}</td>
        <td class="num">{{ s.amount | money }}</td>
      </tr>
      {% endfor %}
    </tbody>
  </table>

  <section class="bottom">
    <div class="left">
      {% if doc.taxes.size > 0 %}
      <div class="recap">
        <h2>{{ 'recap' | t }}</h2>
        <table class="recap">
          <thead><tr><th>{{ 'tax_rate' | t }}</th><th class="num">{{ 'tax_base' | t }}</th><th class="num">{{ 'tax_amount' | t }}</th></tr></thead>
          <tbody>
          {% for tx in doc.taxes %}
            <tr><td>{{ tx.tax_rate | percent }}</td><td class="num">{{ tx.tax_base | money }}</td><td class="num">{{ tx.tax_amount | money }}</td></tr>
          {% endfor %}
          {% comment %} a final invoice takes back, rate by rate, the VAT its advance tax documents declared {% endcomment %}
          {% for adv in doc.advances %}{% for tx in adv.taxes %}
            <tr class="advance"><td>{{ 'advance_deducted' | t: 'no', adv.proforma_no }} {{ tx.tax_rate | percent }}</td><td class="num">-{{ tx.tax_base | money }}</td><td class="num">-{{ tx.tax_amount | money }}</td></tr>
          {% endfor %}{% endfor %}
          </tbody>
        </table>
      </div>
      {% endif %}
      {% comment %} a tax document in a currency other than the organisation's legal one states its VAT in the legal currency too, at the rate used for tax (Czech VAT act § 29; Slovak § 74) {% endcomment %}
      {% if doc.taxes.size > 0 and doc.currency_leg and doc.currency_leg != doc.currency %}
      <div class="recap recap-leg">
        <h2>{{ 'recap_leg' | t: 'currency', doc.currency_leg }}</h2>
        <table class="recap">
          <thead><tr><th>{{ 'tax_rate' | t }}</th><th class="num">{{ 'tax_base' | t }}</th><th class="num">{{ 'tax_amount' | t }}</th></tr></thead>
          <tbody>
          {% for tx in doc.taxes %}
            <tr><td>{{ tx.tax_rate | percent }}</td><td class="num">{{ tx.tax_base_leg | money: doc.currency_leg }}</td><td class="num">{{ tx.tax_amount_leg | money: doc.currency_leg }}</td></tr>
          {% endfor %}
          {% for adv in doc.advances %}{% for tx in adv.taxes %}
            <tr class="advance"><td>{{ 'advance_deducted' | t: 'no', adv.proforma_no }} {{ tx.tax_rate | percent }}</td><td class="num">-{{ tx.tax_base_leg | money: doc.currency_leg }}</td><td class="num">-{{ tx.tax_amount_leg | money: doc.currency_leg }}</td></tr>
          {% endfor %}{% endfor %}
            <tr class="total"><td>{{ 'tax_total' | t }}</td><td></td><td class="num tax-amount-leg">{{ doc.tax_amount_leg | money: doc.currency_leg }}</td></tr>
          </tbody>
        </table>
        {% assign tax_fx = doc.tax_fx_rate | default: doc.fx_rate %}
        <div class="fx-rate">{{ 'fx_rate' | t }}: {{ doc.currency_coef | default: 1 | number }} {{ doc.currency }} = {{ tax_fx | number: 3, 6 }} {{ doc.currency_leg }}</div>
      </div>
      {% endif %}
    </div>
    <div class="right">
      <table class="totals">
        <tr><td>{{ 'subtotal' | t }}</td><td class="num">{{ doc.subtotal_amount | money }}</td></tr>
        {% if doc.tax_amount != nil %}<tr><td>{{ 'tax_amount' | t }}</td><td class="num">{{ doc.tax_amount | money }}</td></tr>{% endif %}
        {% if doc.rounding_amount and doc.rounding_amount != 0 %}<tr class="rounding"><td>{{ 'rounding' | t }}</td><td class="num rounding-amount">{{ doc.rounding_amount | money }}</td></tr>{% endif %}
        <tr class="grand"><td>{{ 'total' | t }}</td><td class="num total-amount">{{ doc.total_amount | money }}</td></tr>
        {% if doc.amount_paid and doc.amount_paid != 0 %}<tr><td>{{ 'amount_paid' | t }}</td><td class="num">{{ doc.amount_paid | money }}</td></tr>{% endif %}
        <tr class="due"><td>{{ due_label | t }}</td><td class="num amount-due">{{ doc.amount_due | money }}</td></tr>
      </table>
    </div>
  </section>

  {% assign account = doc.bank_account.account_number | default: org.bank_account.account_number | default: payment.domestic_account %}
  {% if account or payment.iban or doc.payment_reference or doc.date_due or doc.payment_info or payment.method %}
  <section class="payment">
    {% if payment_qr %}<figure class="payment-qr"><img src="{{ payment_qr.image }}" alt="{{ 'qr_' | append: payment_qr.kind | t }}"><figcaption>{{ 'qr_' | append: payment_qr.kind | t }}</figcaption></figure>{% endif %}
    <h2>{{ 'payment' | t }}</h2>
    <dl>
      {% if payment.method %}<dt>{{ 'payment_method' | t }}</dt><dd class="payment-method">{{ 'method_' | append: payment.method | t }}</dd>{% endif %}
      {% if account %}<dt>{{ 'bank_account' | t }}</dt><dd class="bank-account">{{ account }}</dd>{% endif %}
      {% assign iban = payment.iban | default: org.bank_account.iban %}
      {% if iban %}<dt>IBAN</dt><dd class="iban">{{ iban }}</dd>{% endif %}
      {% if org.bank_account.bic %}<dt>BIC</dt><dd>{{ org.bank_account.bic }}</dd>{% endif %}
      {% if payment.variable_symbol %}<dt>{{ 'variable_symbol' | t }}</dt><dd class="variable-symbol">{{ payment.variable_symbol }}</dd>{% endif %}
      {% if payment.constant_symbol %}<dt>{{ 'constant_symbol' | t }}</dt><dd class="constant-symbol">{{ payment.constant_symbol }}</dd>{% endif %}
      {% if payment.specific_symbol %}<dt>{{ 'specific_symbol' | t }}</dt><dd class="specific-symbol">{{ payment.specific_symbol }}</dd>{% endif %}
      {% if doc.payment_reference and doc.payment_reference != payment.variable_symbol %}<dt>{{ 'payment_reference' | t }}</dt><dd class="payment-reference">{{ doc.payment_reference }}</dd>{% endif %}
      {% if doc.date_due %}<dt>{{ 'date_due' | t }}</dt><dd>{{ doc.date_due | format_date }}</dd>{% endif %}
      <dt>{{ due_label | t }}</dt><dd>{{ doc.amount_due | money }}</dd>
      {% if doc.payment_info %}<dt>{{ 'payment_info' | t }}</dt><dd>{{ doc.payment_info }}</dd>{% endif %}
    </dl>
  </section>
  {% endif %}

  {% if doc.notes %}<div class="notes"><strong>{{ 'notes' | t }}:</strong> {{ doc.notes }}</div>{% endif %}

  <footer{% unless org.website %} class="legal-only"{% endunless %}>{% if org.info_legal %}<span class="legal">{{ org.info_legal }}</span>{% endif %}{% if org.website %}
{{ org.website }}{% endif %}</footer>
</div>

</body>
</html>
`;
