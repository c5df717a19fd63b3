// D-62: the roles a person may have. Apart from their scopes (users.ts), so that a caller
// (access.ts) can name its person's role without the rules of people.
export const SELLER_ROLES = ['admin', 'manager', 'rep', 'viewer'] as const;
export const USER_ROLES = [...SELLER_ROLES, 'closer', 'operator'] as const;
export type UserRole = (typeof USER_ROLES)[number];
