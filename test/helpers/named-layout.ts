/**
 * A form app's layout where a schema field competes with its component's own file: components
 * `KTextarea.vue` and `KTextField.vue` (template, script, style) and a JSON Schema whose
 * properties name them (`field: { component }`), with the words `label`, `placeholder` and
 * `notes` in both. The query `field <key> with component <C>` asks for the property.
 */
export const NAMED_FIELDS: ReadonlyArray<[field: string, component: string]> = [
  ['notes', 'KTextarea'],
  ['label', 'KTextField'],
  ['placeholder', 'KTextField'],
];

function component(name: string): string {
  return `<template>\n  <div class="k-field">\n    <label :for="id">{{ label }}</label>\n    <textarea :id="id" v-model="model" :placeholder="placeholder" />\n  </div>\n</template>\n<script>\nexport default {\n  name: '${name}',\n  props: { label: String, placeholder: String, notes: String, modelValue: String },\n  computed: { model: { get() { return this.modelValue }, set(v) { this.$emit('update:modelValue', v) } } },\n}\n</script>\n<style scoped>\n.k-field { display: flex; }\n</style>\n`;
}

/** The layout's files, relative path → text. */
export function namedLayout(): Record<string, string> {
  const props: Record<string, unknown> = {};
  for (const f of ['email', 'label', 'notes', 'placeholder', 'title']) {
    props[f] = { type: 'string', title: f, field: { component: f === 'notes' ? 'KTextarea' : 'KTextField', label: f, placeholder: `Enter ${f}` } };
  }
  return {
    'src/components/form/KTextarea.vue': component('KTextarea'),
    'src/components/form/KTextField.vue': component('KTextField'),
    'src/schemas/contact.schema.json': JSON.stringify({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: props }, null, 2),
  };
}
