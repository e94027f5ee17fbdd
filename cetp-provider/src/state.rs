//! Provider state: values given to [`ProviderBuilder::state`](crate::ProviderBuilder::state) and
//! borrowed by tools, and [`StateType`], how a tool names the types it borrows.

use std::any::{Any, TypeId};

use crate::type_map::TypeMap;

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

    /// Whether `states` holds a value of this type.
    pub(crate) fn is_in(&self, states: &TypeMap) -> bool {
        states.contains_id(self.id)
    }
}
