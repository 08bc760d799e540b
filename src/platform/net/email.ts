/** A plausible email address (one @, a dot in the domain, no spaces). */
export const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
