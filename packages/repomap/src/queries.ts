// Tag queries per language, written for clippy. Captures:
//   @def.<type> on a definition node, with @name on its name;
//   @ref.<type> on an identifier that refers to something defined elsewhere.

const JS_COMMON = `
(function_declaration name: (identifier) @name) @def.function
(generator_function_declaration name: (identifier) @name) @def.function
(method_definition name: (property_identifier) @name) @def.method
(program (lexical_declaration (variable_declarator name: (identifier) @name)) @def.variable)
(program (variable_declaration (variable_declarator name: (identifier) @name)) @def.variable)
(program (export_statement (lexical_declaration (variable_declarator name: (identifier) @name)) @def.variable))
(program (export_statement (variable_declaration (variable_declarator name: (identifier) @name)) @def.variable))
(call_expression function: (identifier) @ref.call)
(call_expression function: (member_expression property: (property_identifier) @ref.call))
(new_expression constructor: (identifier) @ref.class)
(import_specifier name: (identifier) @ref.import)
`;

const TS_COMMON = `${JS_COMMON}
(class_declaration name: (type_identifier) @name) @def.class
(abstract_class_declaration name: (type_identifier) @name) @def.class
(interface_declaration name: (type_identifier) @name) @def.interface
(type_alias_declaration name: (type_identifier) @name) @def.type
(enum_declaration name: (identifier) @name) @def.enum
(internal_module name: (identifier) @name) @def.module
(method_signature name: (property_identifier) @name) @def.method
(abstract_method_signature name: (property_identifier) @name) @def.method
(function_signature name: (identifier) @name) @def.function
(type_identifier) @ref.type
`;

export const TAG_QUERIES: Record<string, string> = {
  typescript: TS_COMMON,
  tsx: TS_COMMON,
  javascript: `${JS_COMMON}
(class_declaration name: (identifier) @name) @def.class
`,
  python: `
(function_definition name: (identifier) @name) @def.function
(class_definition name: (identifier) @name) @def.class
(module (expression_statement (assignment left: (identifier) @name) @def.variable))
(call function: (identifier) @ref.call)
(call function: (attribute attribute: (identifier) @ref.call))
(import_from_statement name: (dotted_name (identifier) @ref.import))
(argument_list (identifier) @ref.name)
(class_definition superclasses: (argument_list (identifier) @ref.class))
(type (identifier) @ref.type)
`,
  go: `
(function_declaration name: (identifier) @name) @def.function
(method_declaration name: (field_identifier) @name) @def.method
(type_spec name: (type_identifier) @name) @def.type
(call_expression function: (identifier) @ref.call)
(call_expression function: (selector_expression field: (field_identifier) @ref.call))
(type_identifier) @ref.type
`,
  rust: `
(function_item name: (identifier) @name) @def.function
(function_signature_item name: (identifier) @name) @def.method
(struct_item name: (type_identifier) @name) @def.struct
(enum_item name: (type_identifier) @name) @def.enum
(union_item name: (type_identifier) @name) @def.struct
(trait_item name: (type_identifier) @name) @def.trait
(impl_item type: (type_identifier) @name) @def.impl
(mod_item name: (identifier) @name) @def.module
(type_item name: (type_identifier) @name) @def.type
(const_item name: (identifier) @name) @def.constant
(static_item name: (identifier) @name) @def.constant
(macro_definition name: (identifier) @name) @def.macro
(call_expression function: (identifier) @ref.call)
(call_expression function: (field_expression field: (field_identifier) @ref.call))
(call_expression function: (scoped_identifier name: (identifier) @ref.call))
(macro_invocation macro: (identifier) @ref.call)
(type_identifier) @ref.type
`,
  java: `
(class_declaration name: (identifier) @name) @def.class
(interface_declaration name: (identifier) @name) @def.interface
(enum_declaration name: (identifier) @name) @def.enum
(record_declaration name: (identifier) @name) @def.class
(method_declaration name: (identifier) @name) @def.method
(constructor_declaration name: (identifier) @name) @def.method
(method_invocation name: (identifier) @ref.call)
(object_creation_expression type: (type_identifier) @ref.class)
(type_identifier) @ref.type
`,
  c: '',
  cpp: `
(function_definition declarator: (function_declarator declarator: (identifier) @name)) @def.function
(function_definition declarator: (function_declarator declarator: (field_identifier) @name)) @def.method
(function_definition declarator: (function_declarator declarator: (qualified_identifier name: (identifier) @name))) @def.method
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @def.function
(declaration declarator: (function_declarator declarator: (identifier) @name)) @def.function
(declaration declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @def.function
(field_declaration declarator: (function_declarator declarator: (field_identifier) @name)) @def.method
(struct_specifier name: (type_identifier) @name body: (_)) @def.struct
(class_specifier name: (type_identifier) @name body: (_)) @def.class
(union_specifier name: (type_identifier) @name body: (_)) @def.struct
(enum_specifier name: (type_identifier) @name body: (_)) @def.enum
(type_definition declarator: (type_identifier) @name) @def.type
(namespace_definition name: (namespace_identifier) @name) @def.module
(preproc_function_def name: (identifier) @name) @def.macro
(call_expression function: (identifier) @ref.call)
(call_expression function: (field_expression field: (field_identifier) @ref.call))
(call_expression function: (qualified_identifier name: (identifier) @ref.call))
(type_identifier) @ref.type
`,
  csharp: `
(class_declaration name: (identifier) @name) @def.class
(interface_declaration name: (identifier) @name) @def.interface
(struct_declaration name: (identifier) @name) @def.struct
(enum_declaration name: (identifier) @name) @def.enum
(record_declaration name: (identifier) @name) @def.class
(method_declaration name: (identifier) @name) @def.method
(constructor_declaration name: (identifier) @name) @def.method
(property_declaration name: (identifier) @name) @def.property
(namespace_declaration name: (_) @name) @def.module
(file_scoped_namespace_declaration name: (_) @name) @def.module
(invocation_expression function: (identifier) @ref.call)
(invocation_expression function: (member_access_expression name: (identifier) @ref.call))
(object_creation_expression type: (identifier) @ref.class)
(base_list (identifier) @ref.class)
`,
  ruby: `
(method name: (_) @name) @def.method
(singleton_method name: (_) @name) @def.method
(class name: (_) @name) @def.class
(module name: (_) @name) @def.module
(call method: (identifier) @ref.call)
(superclass (constant) @ref.class)
(call receiver: (constant) @ref.class)
`,
  php: `
(function_definition name: (name) @name) @def.function
(class_declaration name: (name) @name) @def.class
(interface_declaration name: (name) @name) @def.interface
(trait_declaration name: (name) @name) @def.trait
(enum_declaration name: (name) @name) @def.enum
(method_declaration name: (name) @name) @def.method
(function_call_expression function: (name) @ref.call)
(member_call_expression name: (name) @ref.call)
(scoped_call_expression name: (name) @ref.call)
(object_creation_expression (name) @ref.class)
(base_clause (name) @ref.class)
`,
  bash: `
(function_definition name: (word) @name) @def.function
(command name: (command_name (word) @ref.call))
`,
};
TAG_QUERIES.c = TAG_QUERIES.cpp!;

/** Definition types whose whole text is their interface (no body to elide). */
export const WHOLE_TEXT_TYPES = new Set([
  'interface',
  'type',
  'enum',
  'struct',
  'constant',
  'macro',
]);

/** Definition types whose members (depth 1) belong to their interface. */
export const CONTAINER_TYPES = new Set(['class', 'interface', 'trait', 'impl', 'struct', 'module']);

/** Definition types that only group others (namespaces): members count as top level. */
export const TRANSPARENT_TYPES = new Set(['module']);

/** Wrapper nodes whose start/comments belong to the definition inside them. */
export const WRAPPER_TYPES = new Set([
  'export_statement',
  'decorated_definition',
  'template_declaration',
  'ambient_declaration',
  'type_declaration',
  'lexical_declaration',
  'variable_declaration',
  'expression_statement',
]);
