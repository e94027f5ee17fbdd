//! Provider state: values given to [`ProviderBuilder::state`](crate::ProviderBuilder::state) and
//! borrowed by tools.

use std::any::{Any, TypeId};

/// A type of provider state a tool borrows, as [`Tool::state_types`](crate::Tool::state_types)
/// lists it. The provider checks at build time that every listed type was given.
///
/// ```
/// use cetp_provider::StateType;
/// struct Database;
/// assert!(StateType::of::<Database>().name().ends_with("Database"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateType {
    id: TypeId,
    name: &'static str,
}

impl StateType {
    /// The state type `T`.
    pub fn of<T: Any>() -> Self {
        StateType {
            id: TypeId::of::<T>(),
            name: std::any::type_name::<T>(),
        }
    }

    /// The type's name, for messages.
    pub fn name(&self) -> &'static str {
        self.name
    }
}

/// The provider's state values, one per type. A provider holds a handful at most, so a list
/// searched by `TypeId` beats a map.
#[derive(Default)]
pub(crate) struct States(Vec<(TypeId, Box<dyn Any + Send + Sync>)>);

impl std::fmt::Debug for States {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} state value(s)", self.0.len())
    }
}

impl States {
    /// Adds `value`; returns it back if a value of its type is already there.
    pub(crate) fn insert<T: Any + Send + Sync>(&mut self, value: T) -> Result<(), T> {
        if self.contains(StateType::of::<T>()) {
            return Err(value);
        }
        self.0.push((TypeId::of::<T>(), Box::new(value)));
        Ok(())
    }

    pub(crate) fn contains(&self, ty: StateType) -> bool {
        self.0.iter().any(|(id, _)| *id == ty.id)
    }

    pub(crate) fn get<T: Any>(&self) -> Option<&T> {
        self.0
            .iter()
            .find(|(id, _)| *id == TypeId::of::<T>())
            .and_then(|(_, value)| value.downcast_ref())
    }
}
