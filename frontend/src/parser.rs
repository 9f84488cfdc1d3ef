//! Parsing PTX text into an [`ast::Module`](crate::ast::Module).
