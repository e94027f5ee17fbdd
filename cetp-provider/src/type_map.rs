//! [`TypeMap`]: at most one value per type, found by its `TypeId`. The provider keeps the
//! state tools borrow in one, and the settings each host reads in another.

use std::any::{Any, TypeId};

/// One value per type. A provider holds a handful at most, so a list searched by `TypeId`
/// beats a map.
#[derive(Default)]
pub(crate) struct TypeMap(Vec<(TypeId, Box<dyn Any + Send + Sync>)>);

impl std::fmt::Debug for TypeMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} value(s)", self.0.len())
    }
}

impl TypeMap {
    /// Adds `value`; returns it back if a value of its type is already there.
    pub(crate) fn insert<T: Any + Send + Sync>(&mut self, value: T) -> Result<(), T> {
        if self.contains_id(TypeId::of::<T>()) {
            return Err(value);
        }
        self.0.push((TypeId::of::<T>(), Box::new(value)));
        Ok(())
    }

    /// Adds or replaces the value of `T`.
    pub(crate) fn set<T: Any + Send + Sync>(&mut self, value: T) {
        self.0.retain(|(id, _)| *id != TypeId::of::<T>());
        self.0.push((TypeId::of::<T>(), Box::new(value)));
    }

    pub(crate) fn contains_id(&self, id: TypeId) -> bool {
        self.0.iter().any(|(have, _)| *have == id)
    }

    pub(crate) fn get<T: Any>(&self) -> Option<&T> {
        self.0
            .iter()
            .find(|(id, _)| *id == TypeId::of::<T>())
            .and_then(|(_, value)| value.downcast_ref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_value_per_type() {
        let mut map = TypeMap::default();
        assert!(map.insert(7u8).is_ok());
        assert_eq!(map.insert(8u8), Err(8));
        map.set(9u8);
        assert_eq!(map.get::<u8>(), Some(&9));
        assert_eq!(map.get::<u16>(), None);
        assert!(map.contains_id(TypeId::of::<u8>()));
    }
}
