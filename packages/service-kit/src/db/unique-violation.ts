/**
 * Whether a database error is a unique violation, as the ORM names it or as Postgres codes it
 * (SQLSTATE 23505). No driver imported: the HTTP layer maps such errors without loading one.
 */
export function isUniqueViolation(e: unknown): boolean {
  const err = e as { code?: string; name?: string } | null | undefined;
  return err?.name === 'UniqueConstraintViolationException' || err?.code === '23505';
}
