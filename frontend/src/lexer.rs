//! PTX tokens (logos).
