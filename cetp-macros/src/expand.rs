//! The `#[tool]` expansion: checks the function and emits the marker struct, the args struct and
//! the `Tool` impl.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Attribute, FnArg, Ident, ItemFn, LitStr, Pat, ReturnType, Type, TypePath};

use crate::attr::{self, MetaAttr, ToolAttr};
use crate::docs;

/// Attributes written on a parameter that are moved onto the generated args-struct field.
const FORWARDED: &[&str] = &["doc", "serde", "schemars", "validate", "garde"];

/// Expands `#[tool(attr)] item`.
pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut func: ItemFn = match syn::parse2(item.clone()) {
        Ok(func) => func,
        Err(_) => {
            let err = syn::Error::new(
                Span::call_site(),
                "`#[tool]` goes on a documented free function: \
                 `/// What it does.` `#[tool]` `fn name(param: Type) -> Output { ... }`",
            );
            let err = err.to_compile_error();
            return quote!(#err #item);
        }
    };

    let mut errors: Vec<syn::Error> = Vec::new();
    let tool_attr = match attr::parse(attr) {
        Ok(a) => a,
        Err(err) => {
            errors.push(err);
            ToolAttr::default()
        }
    };

    let tool = analyze(&mut func, &tool_attr, &mut errors);

    // The function is always emitted (without the parameter attributes rustc would reject), so a
    // mistake in the tool declaration does not also break every caller of the function.
    if errors.is_empty() {
        let generated = generate(&func, &tool, &tool_attr.meta);
        // Every parameter is a JSON property taken by value, so these lints would fight the
        // shape `#[tool]` requires.
        func.attrs.push(syn::parse_quote!(
            #[allow(clippy::too_many_arguments, clippy::needless_pass_by_value)]
        ));
        quote!(#func #generated)
    } else {
        let errors = errors.iter().map(syn::Error::to_compile_error);
        quote!(#func #(#errors)*)
    }
}

/// What the expansion needs to know about a well-formed tool function.
struct ToolFn {
    name: String,
    /// The constant that checks `name` against the tool-name rule when the crate compiles.
    name_check: TokenStream,
    description: String,
    scopes: Vec<String>,
    params: Vec<Param>,
    output: Output,
}

enum Param {
    /// An argument: a field of the args struct.
    Arg {
        ident: Ident,
        ty: Box<Type>,
        attrs: Vec<Attribute>,
    },
    /// The injected `&CallContext`.
    Context,
    /// Provider state borrowed as `&T`: the `T`.
    State(Box<Type>),
}

enum Output {
    /// No return type: `()`.
    Unit,
    /// `-> Result<T, E>` (last path segment `Result`).
    Result(Box<Type>),
    /// `-> T`.
    Plain(Box<Type>),
}

fn analyze(func: &mut ItemFn, tool_attr: &ToolAttr, errors: &mut Vec<syn::Error>) -> ToolFn {
    let sig = &func.sig;

    if let Some(token) = &sig.asyncness {
        errors.push(syn::Error::new(
            token.span(),
            "tools cannot be `async`: CETP calls arrive on a Binder thread that waits for the \
             answer anyway; remove `async` and do the work blocking, or drive your async code \
             with your runtime's `block_on` inside the function",
        ));
    }
    if let syn::Safety::Unsafe(token) = &sig.safety {
        errors.push(syn::Error::new(
            token.span(),
            "tools cannot be `unsafe`: the provider calls them with untrusted arguments; make \
             the function safe and use `unsafe` blocks inside it",
        ));
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        let tokens = if sig.generics.params.is_empty() {
            sig.generics.where_clause.to_token_stream()
        } else {
            sig.generics.to_token_stream()
        };
        errors.push(syn::Error::new_spanned(
            tokens,
            "tools cannot be generic: the argument schema and the result type must be known \
             when the provider is built; use concrete types (or write one `#[tool]` function per \
             type that calls a generic helper)",
        ));
    }
    if let Some(variadic) = &sig.variadic {
        errors.push(syn::Error::new_spanned(
            variadic,
            "tools cannot be variadic: declare each argument as a named parameter",
        ));
    }

    // Name.
    let (name, name_check) = match &tool_attr.name {
        Some(lit) => {
            let name = lit.value();
            let check = name_check(&name, lit.span(), true);
            (name, check)
        }
        None => {
            let name = sig.ident.unraw().to_string();
            let check = name_check(&name, sig.ident.span(), false);
            (name, check)
        }
    };

    // Description.
    let description = match docs::doc_strings(&func.attrs) {
        Ok(docs) => docs::description(&docs),
        Err(attr) => {
            errors.push(syn::Error::new_spanned(
                attr,
                "the tool description must be written as `///` doc comments (or \
                 `#[doc = \"...\"]` string literals) so `#[tool]` can read it",
            ));
            "?".to_owned()
        }
    };
    if description.is_empty() {
        errors.push(syn::Error::new(
            sig.ident.span(),
            format!(
                "tool `{name}` needs a description: add a doc comment above `#[tool]`, e.g. \
                 `/// Searches notes by words in their title or body.`; the model reads it to \
                 decide when to call the tool"
            ),
        ));
    }

    // Scopes.
    attr::check_scopes(&tool_attr.scopes, errors);
    let scopes = tool_attr.scopes.iter().map(LitStr::value).collect();

    // Parameters.
    let mut params = Vec::new();
    let mut context_seen = false;
    let mut names: Vec<String> = Vec::new();
    for input in func.sig.inputs.iter_mut() {
        let pat_type = match input {
            FnArg::Receiver(receiver) => {
                errors.push(syn::Error::new_spanned(
                    &*receiver,
                    "tools are free functions and cannot take `self`: move the function out of \
                     the `impl` block and borrow what it needs as provider state, a `&T` \
                     parameter given with `ProviderBuilder::state`",
                ));
                continue;
            }
            FnArg::Typed(pat_type) => pat_type,
        };

        // Split the attributes: forwarded ones go to the args field, the rest stay.
        let (forwarded, kept): (Vec<Attribute>, Vec<Attribute>) =
            std::mem::take(&mut pat_type.attrs)
                .into_iter()
                .partition(|a| FORWARDED.iter().any(|name| a.path().is_ident(name)));
        pat_type.attrs = kept;
        for attr in &pat_type.attrs {
            if attr.path().is_ident("cfg") || attr.path().is_ident("cfg_attr") {
                errors.push(syn::Error::new_spanned(
                    attr,
                    "`#[cfg]` is not supported on tool parameters: the argument schema must not \
                     change with the build configuration; put the `#[cfg]` on the whole tool",
                ));
            }
        }

        let ty = &*pat_type.ty;
        if is_context(ty) {
            match ty {
                Type::Reference(r) if r.mutability.is_none() => {}
                Type::Reference(r) => {
                    errors.push(syn::Error::new_spanned(
                        r,
                        "the call context is shared: take it as `&CallContext`, not `&mut`",
                    ));
                    continue;
                }
                _ => {
                    errors.push(syn::Error::new_spanned(
                        ty,
                        "the call context is passed by reference: take it as `&CallContext`",
                    ));
                    continue;
                }
            }
            if context_seen {
                errors.push(syn::Error::new_spanned(
                    &pat_type,
                    "a tool takes at most one `&CallContext` parameter: remove this one and use \
                     the first",
                ));
                continue;
            }
            context_seen = true;
            reject_argument_attrs(&forwarded, "the `&CallContext` parameter", errors);
            params.push(Param::Context);
            continue;
        }

        if let Some(state) = state_type(ty) {
            match state {
                Ok(state) => {
                    reject_argument_attrs(&forwarded, "provider state", errors);
                    params.push(Param::State(Box::new(state.clone())));
                }
                Err(err) => errors.push(err),
            }
            continue;
        }

        if let Err(err) = check_param_type(ty) {
            errors.push(err);
            continue;
        }

        let ident = match &*pat_type.pat {
            Pat::Ident(pat) if pat.by_ref.is_none() && pat.subpat.is_none() => pat.ident.clone(),
            Pat::Wild(_) => {
                errors.push(syn::Error::new_spanned(
                    &pat_type.pat,
                    "give this parameter a name: tool parameters become the JSON properties of \
                     the arguments (use `_name: Type` if the function ignores it)",
                ));
                continue;
            }
            other => {
                errors.push(syn::Error::new_spanned(
                    other,
                    "tool parameters must be plain identifiers, because each one becomes a JSON \
                     property of the arguments: write `name: Type` and destructure inside the \
                     function",
                ));
                continue;
            }
        };

        let unraw = ident.unraw().to_string();
        if names.contains(&unraw) {
            errors.push(syn::Error::new(
                ident.span(),
                format!(
                    "duplicate parameter name `{unraw}`: each parameter becomes the JSON \
                     property `{unraw}`, so names must be unique"
                ),
            ));
            continue;
        }
        names.push(unraw);

        params.push(Param::Arg {
            ident,
            ty: Box::new(ty.clone()),
            attrs: forwarded,
        });
    }

    // Return type.
    let output = match &func.sig.output {
        ReturnType::Default => Output::Unit,
        ReturnType::Type(_, ty) => match &**ty {
            Type::ImplTrait(_) => {
                errors.push(syn::Error::new_spanned(
                    ty,
                    "tools cannot return `impl Trait`: name the concrete type, which must \
                     implement `serde::Serialize`",
                ));
                Output::Unit
            }
            _ if is_result(ty) => Output::Result(ty.clone()),
            _ => Output::Plain(ty.clone()),
        },
    };

    ToolFn {
        name,
        name_check,
        description,
        scopes,
        params,
        output,
    }
}

/// The compile-time check of the tool name, at `span`: a call of the runtime's tool-name rule
/// in a constant, which fails to compile with this message when the name breaks the rule. The
/// macro and the provider thus share one rule (`cetp_provider::__private::is_valid_tool_name`).
fn name_check(name: &str, span: Span, explicit: bool) -> TokenStream {
    let rule = "tool names must match `[a-z][a-z0-9_]{0,63}`: lower-case ASCII letters, digits \
                and `_`, starting with a letter, at most 64 characters";
    let fix = match attr::suggest_tool_name(name) {
        Some(s) if explicit => format!("; e.g. `name = \"{s}\"`"),
        Some(s) => format!("; rename the function or set `#[tool(name = \"{s}\")]`"),
        None if explicit => String::new(),
        None => "; rename the function or set `#[tool(name = \"...\")]`".to_owned(),
    };
    let message = format!("invalid tool name `{name}`: {rule}{fix}");
    quote_spanned! {span=>
        const _: () = ::cetp_provider::__private::check_tool_name(#name, #message);
    }
}

/// Whether `ty` is `CallContext`, `&CallContext` or `&mut CallContext` (any path ending so,
/// with or without a lifetime argument).
fn is_context(ty: &Type) -> bool {
    let ty = match ty {
        Type::Reference(r) => &*r.elem,
        other => other,
    };
    match ty {
        Type::Path(TypePath {
            qself: None, path, ..
        }) => path.segments.last().is_some_and(|s| {
            s.ident == "CallContext"
                && match &s.arguments {
                    syn::PathArguments::None => true,
                    // `CallContext<'_>` (needed under `rust_2018_idioms`), `CallContext<'a>`.
                    syn::PathArguments::AngleBracketed(args) => args
                        .args
                        .iter()
                        .all(|a| matches!(a, syn::GenericArgument::Lifetime(_))),
                    syn::PathArguments::Parenthesized(_) => false,
                }
        }),
        Type::Paren(p) => is_context(&p.elem),
        Type::Group(g) => is_context(&g.elem),
        _ => false,
    }
}

/// Argument attributes (`#[serde]`, `#[schemars]`, ...) on an injected parameter do nothing.
fn reject_argument_attrs(attrs: &[Attribute], what: &str, errors: &mut Vec<syn::Error>) {
    for attr in attrs.iter().filter(|a| !a.path().is_ident("doc")) {
        errors.push(syn::Error::new_spanned(
            attr,
            format!(
                "{what} is injected, not part of the arguments: this attribute has no effect \
                 here, remove it"
            ),
        ));
    }
}

/// `Some(Ok(T))` when `ty` is `&T` borrowing provider state: a shared reference to a sized
/// type. `&str`, `&[T]` and `&Path` stay arguments (and are rejected as such); `&mut T` is an
/// error, because state is shared by every call.
fn state_type(ty: &Type) -> Option<Result<&Type, syn::Error>> {
    let Type::Reference(r) = ty else {
        return None;
    };
    let unsized_elem = match &*r.elem {
        Type::Slice(_) | Type::TraitObject(_) | Type::ImplTrait(_) => true,
        Type::Path(TypePath {
            qself: None, path, ..
        }) => ["str", "Path", "OsStr", "CStr"]
            .iter()
            .any(|n| path.is_ident(n)),
        _ => false,
    };
    if unsized_elem {
        return None;
    }
    if r.mutability.is_some() {
        let elem = tokens_to_string(&*r.elem);
        return Some(Err(syn::Error::new_spanned(
            r,
            format!(
                "`&mut` parameters are not supported: provider state is shared by every call, \
                 so borrow it as `&{elem}` (put what changes behind a `Mutex` inside it); an \
                 argument from the JSON is taken by value: `{elem}`"
            ),
        )));
    }
    Some(Ok(&*r.elem))
}

/// Rejects parameter types that cannot be deserialized into an owned value.
fn check_param_type(ty: &Type) -> Result<(), syn::Error> {
    match ty {
        Type::Reference(r) => {
            let owned = owned_suggestion(&r.elem);
            let message = if r.mutability.is_some() {
                format!(
                    "`&mut` parameters are not supported: tool arguments are deserialized from \
                     JSON into values the tool owns; take `{owned}` by value"
                )
            } else {
                format!(
                    "tool arguments are deserialized from JSON into owned values: take `{owned}` \
                     by value instead of a reference (a `&T` parameter of a sized type is \
                     provider state, not an argument)"
                )
            };
            Err(syn::Error::new_spanned(r, message))
        }
        Type::ImplTrait(_) => Err(syn::Error::new_spanned(
            ty,
            "`impl Trait` parameters are not supported: the argument schema needs a concrete \
             type that implements `serde::Deserialize` and `schemars::JsonSchema`",
        )),
        Type::Paren(p) => check_param_type(&p.elem),
        Type::Group(g) => check_param_type(&g.elem),
        // Look inside `Option<&str>`, `Vec<impl Trait>`, `(&str, u8)`, `[&str; 2]`.
        Type::Path(TypePath {
            qself: None, path, ..
        }) => {
            for segment in &path.segments {
                if let syn::PathArguments::AngleBracketed(args) = &segment.arguments {
                    for arg in &args.args {
                        if let syn::GenericArgument::Type(inner) = arg {
                            check_param_type(inner)?;
                        }
                    }
                }
            }
            Ok(())
        }
        Type::Tuple(t) => t.elems.iter().try_for_each(check_param_type),
        Type::Array(a) => check_param_type(&a.elem),
        Type::Slice(s) => check_param_type(&s.elem),
        _ => Ok(()),
    }
}

/// `str` -> `String`, `[T]` -> `Vec<T>`, `Path` -> `PathBuf`, anything else stays.
fn owned_suggestion(ty: &Type) -> String {
    match ty {
        Type::Path(TypePath {
            qself: None, path, ..
        }) if path.is_ident("str") => "String".to_owned(),
        Type::Path(TypePath {
            qself: None, path, ..
        }) if path.is_ident("Path") => "PathBuf".to_owned(),
        Type::Slice(s) => format!("Vec<{}>", tokens_to_string(&s.elem)),
        other => tokens_to_string(other),
    }
}

fn tokens_to_string(tokens: &impl ToTokens) -> String {
    // Good enough for messages: `Vec < T >` -> `Vec<T>`.
    tokens
        .to_token_stream()
        .to_string()
        .replace(" < ", "<")
        .replace(" <", "<")
        .replace("< ", "<")
        .replace(" >", ">")
        .replace(" ,", ",")
        .replace(" :: ", "::")
        .replace("& ", "&")
}

fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Path(TypePath {
            qself: None, path, ..
        }) => path.segments.last(),
        Type::Paren(p) => last_segment(&p.elem),
        Type::Group(g) => last_segment(&g.elem),
        _ => None,
    }
}

fn is_result(ty: &Type) -> bool {
    last_segment(ty).is_some_and(|s| s.ident == "Result")
}

/// Whether a parameter's forwarded attributes hold a doc comment with text.
fn documented(attrs: &[Attribute]) -> bool {
    docs::doc_strings(attrs).map_or(true, |docs| !docs::description(&docs).is_empty())
}

/// A compile-time warning at `param`, which has no doc comment: stable proc macros cannot emit
/// warnings, so this uses a deprecated constant, which rustc reports (lint `deprecated`, on by
/// default) where it is used: the parameter's name.
fn undocumented_warning(tool: &str, param: &Ident) -> TokenStream {
    let unraw = param.unraw().to_string();
    let note = format!(
        "parameter `{unraw}` of tool `{tool}` has no doc comment, so the model gets no \
         description of it; write one above the parameter: `/// What it is, with an example value.`"
    );
    let marker = Ident::new("parameter_without_doc_comment", Span::call_site());
    // The same name, spanned at the parameter: where rustc reports the use.
    let usage = Ident::new("parameter_without_doc_comment", param.span());
    quote! {
        const _: () = {
            #[deprecated(note = #note)]
            #[allow(non_upper_case_globals)]
            const #marker: () = ();
            #usage
        };
    }
}

/// The metadata items of the `Tool` impl: title and hints when given, and `output_schema`,
/// which advertises the result type's schema when it implements `JsonSchema`.
fn meta_items(meta: &MetaAttr, output_ty: &TokenStream) -> TokenStream {
    let title = meta
        .title
        .as_ref()
        .map(|t| quote!(const TITLE: ::core::option::Option<&'static str> = ::core::option::Option::Some(#t);));
    let idempotent = meta.idempotent.then(|| {
        quote!(
            const IDEMPOTENT: bool = true;
        )
    });
    let open_world = meta.open_world.then(|| {
        quote!(
            const OPEN_WORLD: bool = true;
        )
    });
    let long_running = meta.long_running.then(|| {
        quote!(
            const LONG_RUNNING: bool = true;
        )
    });
    quote! {
        #title
        #idempotent
        #open_world
        #long_running

        fn output_schema() -> ::cetp_provider::__private::OutputSchema {
            #[allow(unused_imports)]
            use ::cetp_provider::__private::{WithSchema as _, WithoutSchema as _};
            (&&::cetp_provider::__private::OutputProbe::<#output_ty>::NEW).output_schema()
        }
    }
}

fn generate(func: &ItemFn, tool: &ToolFn, meta: &MetaAttr) -> TokenStream {
    let vis = &func.vis;
    let fn_ident = &func.sig.ident;
    let name = &tool.name;
    let name_check = &tool.name_check;
    let description = &tool.description;
    let scopes = &tool.scopes;
    let args_ident = format_ident!("__CetpArgs_{}", fn_ident.unraw());
    let args_var = Ident::new("__cetp_args", Span::mixed_site());
    let ctx_var = Ident::new("__cetp_ctx", Span::mixed_site());

    let mut fields = Vec::new();
    let mut call_args = Vec::new();
    let mut state_lets = Vec::new();
    let mut state_types = Vec::new();
    for (index, param) in tool.params.iter().enumerate() {
        match param {
            Param::Arg { ident, ty, attrs } => {
                // `Option<T>` fields need no `#[serde(default)]`: serde fills a missing `Option`
                // with `None`, and schemars leaves it out of `required` (without the
                // `"default": null` a `#[serde(default)]` would add to the schema).
                fields.push(quote! {
                    #(#attrs)*
                    #ident: #ty,
                });
                call_args.push(quote!(#args_var.#ident));
            }
            Param::Context => call_args.push(quote!(#ctx_var)),
            Param::State(ty) => {
                let var = Ident::new(&format!("__cetp_state_{index}"), Span::mixed_site());
                state_lets.push(quote_spanned! {ty.span()=>
                    let #var: &#ty = ::cetp_provider::__private::state::<#ty>(#ctx_var)?;
                });
                state_types
                    .push(quote_spanned!(ty.span()=> ::cetp_provider::StateType::of::<#ty>()));
                call_args.push(quote!(#var));
            }
        }
    }
    // Listed for the provider, which refuses to build without every state a tool borrows.
    let state_types_fn = (!state_types.is_empty()).then(|| {
        quote! {
            fn state_types() -> ::std::vec::Vec<::cetp_provider::StateType> {
                ::std::vec![#(#state_types),*]
            }
        }
    });

    let call = quote!(#fn_ident(#(#call_args),*));
    let ret_span = match &tool.output {
        Output::Unit => Span::call_site(),
        Output::Plain(ty) | Output::Result(ty) => ty.span(),
    };
    let (output_ty, body) = match &tool.output {
        Output::Unit => (
            quote!(()),
            quote!({
                #call;
                ::core::result::Result::Ok(())
            }),
        ),
        Output::Plain(ty) => (
            quote!(#ty),
            quote_spanned!(ty.span()=> ::cetp_provider::__private::ok::<#ty>(#call)),
        ),
        Output::Result(ty) => (
            quote_spanned!(ty.span()=> <#ty as ::cetp_provider::__private::IntoToolResult>::Output),
            quote_spanned!(ty.span()=>
                <#ty as ::cetp_provider::__private::IntoToolResult>::into_tool_result(#call)
            ),
        ),
    };

    // Spanned at the user's return type: the compiler reports a bad return type (one that is
    // not `Serialize`, or an error type without `Into<ToolError>`) at the method signature.
    let call_fn = quote_spanned! {ret_span=>
        #[allow(unused_variables)]
        fn call(
            &self,
            #args_var: Self::Args,
            #ctx_var: &::cetp_provider::CallContext<'_>,
        ) -> ::core::result::Result<Self::Output, ::cetp_provider::ToolError> {
            #(#state_lets)*
            #body
        }
    };

    let meta_items = meta_items(meta, &output_ty);
    let doc_warnings = tool.params.iter().filter_map(|param| match param {
        Param::Arg { ident, attrs, .. } if !documented(attrs) => {
            Some(undocumented_warning(name, ident))
        }
        _ => None,
    });

    // The derives report some missing-trait errors at their own call site: make that the
    // parameter list rather than `#[tool]`.
    let params_span = func.sig.paren_token.span.join();
    let derive = quote_spanned! {params_span=>
        #[derive(
            ::cetp_provider::__private::serde::Deserialize,
            ::cetp_provider::__private::schemars::JsonSchema
        )]
    };

    quote! {
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code, missing_docs)]
        #vis struct #fn_ident {}

        #name_check
        #(#doc_warnings)*

        const _: () = {
            #derive
            #[serde(crate = "::cetp_provider::__private::serde", deny_unknown_fields)]
            #[schemars(crate = "::cetp_provider::__private::schemars")]
            #[allow(non_camel_case_types, non_snake_case, dead_code, unreachable_pub)]
            pub struct #args_ident {
                #(#fields)*
            }

            impl ::cetp_provider::Tool for #fn_ident {
                type Args = #args_ident;
                type Output = #output_ty;
                const NAME: &'static str = #name;
                const DESCRIPTION: &'static str = #description;
                const SCOPES: &'static [&'static str] = &[#(#scopes),*];
                #meta_items

                #state_types_fn
                #call_fn
            }
        };
    }
}

#[cfg(test)]
mod tests {
    use super::expand;
    use quote::quote;

    fn expand_str(attr: proc_macro2::TokenStream, item: proc_macro2::TokenStream) -> String {
        expand(attr, item).to_string()
    }

    #[test]
    fn expansion_shape() {
        let out = expand_str(
            quote!(scopes = ["notes.read"]),
            quote! {
                /// Searches notes by words in their title or body.
                pub fn search_notes(
                    /// Words to look for.
                    query: String,
                    /// Only notes carrying this tag.
                    tag: Option<String>,
                    ctx: &CallContext,
                ) -> Result<Vec<Hit>, ToolError> { Ok(Vec::new()) }
            },
        );
        if std::env::var_os("CETP_PRINT_EXPANSION").is_some() {
            println!("{out}");
        }
        // The function is unchanged except for the parameter docs.
        assert!(out.contains(
            "pub fn search_notes (query : String , tag : Option < String > , ctx : & CallContext ,)"
        ));
        assert!(out.contains("pub struct search_notes { }"));
        assert!(out.contains("impl :: cetp_provider :: Tool for search_notes"));
        assert!(out.contains("const NAME : & 'static str = \"search_notes\""));
        assert!(out.contains("const SCOPES : & 'static [& 'static str] = & [\"notes.read\"]"));
        assert!(out.contains("# [doc = r\" Words to look for.\"] query : String ,"));
        assert!(
            out.contains("search_notes (__cetp_args . query , __cetp_args . tag , __cetp_ctx)")
        );
        assert!(!out.contains("compile_error"));
    }

    #[test]
    fn errors_keep_the_function() {
        let out = expand_str(
            quote!(),
            quote!(
                fn undocumented(a: &str) {}
            ),
        );
        assert!(out.contains("fn undocumented (a : & str) { }"));
        assert!(out.contains("compile_error"));
        assert!(!out.contains("impl"));
    }
}
