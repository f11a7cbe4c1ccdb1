//! How long the longest values drawn from a schema are: generation stays
//! within them, and the judge says a schema that asks for more is one no
//! bounded generator meets.

/// The length of the long text a case sends: 10,000 characters.
pub(crate) const LONG_TEXT: usize = 10_000;

/// How many items a long array has: the most an array drawn has.
pub(crate) const LONG_ARRAY: usize = 100;
