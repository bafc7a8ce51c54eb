//! Result types declared once.
//!
//! [`record!`](crate::record) declares an engine result struct and, from the same text, the
//! list of its fields with their shapes and doc comments ([`Record::FIELDS`]). With the
//! `python` feature the struct is also the Python class (frozen, every field a read-only
//! attribute), and the binding derives its repr, `to_dict()`, field list and JSON Schema from
//! `FIELDS`: the Python layer's field lists and the MCP output schemas are generated, never
//! written again by hand.

/// The shape of a field's value, as Python sees it.
#[derive(Clone, Copy, Debug)]
pub enum Shape {
    /// A string.
    Text,
    /// A non-negative integer.
    Count,
    /// An integer of either sign.
    Integer,
    /// A floating-point number.
    Number,
    /// A boolean.
    Flag,
    /// The inner shape, or `None`.
    Optional(fn() -> Shape),
    /// A list of the inner shape.
    List(fn() -> Shape),
    /// Another record.
    Record {
        /// Its Python class name.
        name: &'static str,
        /// Its fields.
        fields: &'static [Field],
    },
    /// One of these strings.
    Choice(&'static [&'static str]),
    /// Encoded bytes (`bytes` in Python), left out of `to_dict()` and the JSON Schema so a
    /// structured copy never embeds them.
    Bytes,
}

/// One field of a record.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    /// The field's name (in Rust and in Python).
    pub name: &'static str,
    /// Its doc comment, one line per `///` line.
    pub doc: &'static str,
    /// Its shape.
    pub shape: fn() -> Shape,
}

impl Field {
    /// The doc comment as one paragraph, without rustdoc's link brackets and backticks.
    pub fn description(&self) -> String {
        self.doc
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
            .replace("[`", "")
            .replace("`]", "")
            .replace('`', "")
    }
}

/// A type whose values have a [`Shape`].
pub trait Described {
    /// The shape of this type's values.
    fn shape() -> Shape;
}

impl Described for String {
    fn shape() -> Shape {
        Shape::Text
    }
}

impl Described for u64 {
    fn shape() -> Shape {
        Shape::Count
    }
}

impl Described for i64 {
    fn shape() -> Shape {
        Shape::Integer
    }
}

impl Described for std::ffi::OsString {
    fn shape() -> Shape {
        Shape::Text
    }
}

impl Described for f64 {
    fn shape() -> Shape {
        Shape::Number
    }
}

impl Described for bool {
    fn shape() -> Shape {
        Shape::Flag
    }
}

impl<T: Described> Described for Option<T> {
    fn shape() -> Shape {
        Shape::Optional(T::shape)
    }
}

impl<T: Described> Described for Vec<T> {
    fn shape() -> Shape {
        Shape::List(T::shape)
    }
}

/// A struct declared with [`record!`](crate::record).
pub trait Record {
    /// The Python class name.
    const PY_NAME: &'static str;
    /// Every field, in declaration order.
    const FIELDS: &'static [Field];
}

/// Declares a result struct (every field `pub`, each with a doc comment) together with its
/// [`Record`] implementation; with the `python` feature the struct is the Python class named
/// by the leading string literal.
#[macro_export]
macro_rules! record {
    (
        $py_name:literal,
        $(#[$meta:meta])*
        pub struct $name:ident {
            $(
                $(#[doc = $doc:literal])*
                pub $field:ident : $ty:ty,
            )*
        }
    ) => {
        $(#[$meta])*
        #[cfg_attr(
            feature = "python",
            pyo3::pyclass(
                frozen,
                get_all,
                eq,
                skip_from_py_object,
                name = $py_name,
                module = "ripsight._core"
            )
        )]
        pub struct $name {
            $(
                $(#[doc = $doc])*
                pub $field: $ty,
            )*
        }

        impl $crate::record::Record for $name {
            const PY_NAME: &'static str = $py_name;
            const FIELDS: &'static [$crate::record::Field] = &[
                $(
                    $crate::record::Field {
                        name: stringify!($field),
                        doc: concat!($($doc, "\n",)*),
                        shape: <$ty as $crate::record::Described>::shape,
                    },
                )*
            ];
        }

        impl $crate::record::Described for $name {
            fn shape() -> $crate::record::Shape {
                $crate::record::Shape::Record {
                    name: $py_name,
                    fields: <$name as $crate::record::Record>::FIELDS,
                }
            }
        }
    };
}

/// Declares a fieldless enum whose values Python sees as strings (`names` in variant order),
/// with `name()` and `from_name()`.
#[macro_export]
macro_rules! choice {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $(
                $(#[$vmeta:meta])*
                $variant:ident = $text:literal,
            )*
        }
    ) => {
        $(#[$meta])*
        pub enum $name {
            $(
                $(#[$vmeta])*
                $variant,
            )*
        }

        impl $name {
            /// Every value's name, in declaration order.
            pub const NAMES: &'static [&'static str] = &[$($text),*];

            /// This value's name.
            pub fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)*
                }
            }

            /// The value called `name`, if any.
            pub fn from_name(name: &str) -> Option<$name> {
                match name {
                    $($text => Some($name::$variant),)*
                    _ => None,
                }
            }
        }

        impl $crate::record::Described for $name {
            fn shape() -> $crate::record::Shape {
                $crate::record::Shape::Choice($name::NAMES)
            }
        }
    };
}
