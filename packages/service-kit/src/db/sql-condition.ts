/** One condition of a list's WHERE clause: SQL with `?` placeholders and their values. */
export interface SqlCondition {
  sql: string;
  params: unknown[];
  /**
   * A condition every matching row meets anyway, there only to steer the plan of the page (a
   * bound an index can start from): the count and its estimate leave it out.
   */
  planOnly?: boolean;
}
