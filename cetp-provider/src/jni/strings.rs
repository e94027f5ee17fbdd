//! Java strings in and out as UTF-16, the JVM's own form: reading copies the UTF-16 units out
//! (`GetStringRegion`) and decodes them once, writing encodes once and hands the units over
//! (`NewString`). The modified UTF-8 functions (`GetStringUTFChars`, `NewStringUTF`) would
//! re-encode on both sides, each with an allocation.
//!
//! Unpaired surrogates, which Java strings may hold and Rust strings may not, become U+FFFD
//! when read; nothing else is lost.

use std::cell::RefCell;

use jni::Env;
use jni::errors::Error;
use jni::objects::JString;
use jni::sys::{jchar, jsize};

thread_local! {
    /// UTF-16 units of the string being read or written, reused by each Binder thread.
    static UNITS: RefCell<Vec<jchar>> = const { RefCell::new(Vec::new()) };
}

/// Reads a Java string (null stays `None`).
pub(super) fn read(env: &Env<'_>, string: &JString<'_>) -> Result<Option<String>, Error> {
    if string.is_null() {
        return Ok(None);
    }
    let raw = env.get_raw();
    // Safety: `raw` is the valid JNIEnv of this native call and `string` a live, non-null
    // reference to a java.lang.String; the region asked for is exactly the string's length, so
    // GetStringRegion cannot throw.
    let text = UNITS.with_borrow_mut(|units| unsafe {
        let interface = *raw;
        let len = ((*interface).v1_1.GetStringLength)(raw, string.as_raw());
        units.clear();
        units.resize(usize::try_from(len).unwrap_or(0), 0);
        if len > 0 {
            ((*interface).v1_2.GetStringRegion)(raw, string.as_raw(), 0, len, units.as_mut_ptr());
        }
        String::from_utf16_lossy(units)
    });
    if env.exception_check() {
        return Err(Error::JavaException);
    }
    Ok(Some(text))
}

/// A string argument, `""` for null.
pub(super) fn read_or_empty(env: &Env<'_>, string: &JString<'_>) -> Result<String, Error> {
    Ok(read(env, string)?.unwrap_or_default())
}

/// A new Java string holding `text`.
pub(super) fn new_string<'local>(
    env: &mut Env<'local>,
    text: &str,
) -> Result<JString<'local>, Error> {
    let raw = env.get_raw();
    let created = UNITS.with_borrow_mut(|units| -> Result<_, Error> {
        units.clear();
        units.extend(text.encode_utf16());
        let len = jsize::try_from(units.len())
            .map_err(|_| Error::JniCall(jni::errors::JniError::NoMemory))?;
        // Safety: `raw` is the valid JNIEnv of this native call and `units` holds `len` UTF-16
        // units; NewString copies them. It returns null (with OutOfMemoryError pending) when it
        // cannot allocate, which the check below turns into an error.
        Ok(unsafe { ((**raw).v1_1.NewString)(raw, units.as_ptr(), len) })
    })?;
    if created.is_null() || env.exception_check() {
        return Err(Error::JavaException);
    }
    // Safety: a fresh local reference to a java.lang.String, owned by this native frame.
    Ok(unsafe { JString::from_raw(env, created) })
}

#[cfg(test)]
mod tests {
    /// What `read` does to the units a Java string may hold (the JVM side is covered by the
    /// template's `-Xcheck:jni` suite, `JniCheckMain`).
    fn decode(units: &[u16]) -> String {
        String::from_utf16_lossy(units)
    }

    #[test]
    fn astral_nul_and_lone_surrogates() {
        let text = "a 🎉 \u{0} 𝄞";
        let units: Vec<u16> = text.encode_utf16().collect();
        assert_eq!(decode(&units), text);
        assert_eq!(decode(&[0xD800, 0x20, 0xDFFF]), "\u{FFFD} \u{FFFD}");
        assert_eq!(decode(&[0xD83C]), "\u{FFFD}");
        assert_eq!(decode(&[]), "");
    }
}
