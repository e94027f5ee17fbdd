//! A row into the tool's type: each row is a map from column name to [`SqlValue`] that serde
//! reads directly (no JSON in between). SQLite has no boolean: an `INTEGER` 0 or 1 reads as
//! `bool` (as Room stores one); an `INTEGER` reads as a float where the type asks for one.

use serde::de::value::{Error, MapDeserializer, SeqDeserializer};
use serde::de::{self, DeserializeOwned, IntoDeserializer, Visitor};
use serde::forward_to_deserialize_any;

use super::SqlValue;

/// `row` (its values in `columns`' order) as a `T`.
pub(super) fn from_row<T: DeserializeOwned>(
    columns: &[String],
    row: Vec<SqlValue>,
) -> Result<T, Error> {
    let entries = columns
        .iter()
        .map(String::as_str)
        .zip(row.into_iter().map(Value));
    T::deserialize(MapDeserializer::new(entries))
}

struct Value(SqlValue);

impl<'de> IntoDeserializer<'de, Error> for Value {
    type Deserializer = Self;
    fn into_deserializer(self) -> Self {
        self
    }
}

impl<'de> de::Deserializer<'de> for Value {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            SqlValue::Null => visitor.visit_unit(),
            SqlValue::Integer(i) => visitor.visit_i64(i),
            SqlValue::Real(r) => visitor.visit_f64(r),
            SqlValue::Text(t) => visitor.visit_string(t),
            SqlValue::Blob(b) => visitor.visit_seq(SeqDeserializer::new(b.into_iter())),
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            SqlValue::Integer(0) => visitor.visit_bool(false),
            SqlValue::Integer(1) => visitor.visit_bool(true),
            other => Value(other).deserialize_any(visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            SqlValue::Null => visitor.visit_none(),
            other => visitor.visit_some(Value(other)),
        }
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            SqlValue::Blob(b) => visitor.visit_byte_buf(b),
            other => Value(other).deserialize_any(visitor),
        }
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        // An enum stored as TEXT (Room's default for an enum): the text names the variant.
        match self.0 {
            SqlValue::Text(t) => visitor.visit_enum(t.into_deserializer()),
            other => Value(other).deserialize_any(visitor),
        }
    }

    forward_to_deserialize_any! {
        i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        unit unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}
