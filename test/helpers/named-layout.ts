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

/**
 * Packages where a name is also a common word of other symbols: commander's `Command.command`
 * methods beside yargs' top-level `command`, and 260 mongoose files whose functions have `array`
 * in their names (more than the keyword index's 200 candidates) beside sequelize's `ARRAY`.
 * The queries `command (command)` and `array (ARRAY)` (the mined `js` route's shape) ask for
 * `NAMESAKES`' files.
 */
export const NAMESAKES: ReadonlyArray<[query: string, file: string]> = [
  ['command (command)', 'yargs/lib/command.js'],
  ['array (ARRAY)', 'sequelize/types/data-types.d.ts'],
];

/** The namesakes' layout: relative path → text. */
export function namesakeLayout(): Record<string, string> {
  const method = (name: string) => `  ${name}(nameAndArgs, opts) {\n    const cmd = this.createCommand(nameAndArgs);\n    this.commands.push(cmd);\n    cmd.parent = this;\n    return cmd;\n  }`;
  // the 260 files first: the namesake is indexed last (a tie of candidate scores went to the first indexed)
  const files: Record<string, string> = {};
  const letters = (i: number) => String.fromCharCode(97 + Math.floor(i / 26), 97 + (i % 26));
  for (let i = 0; i < 260; i++) {
    const name = `arrayOf${letters(i)[0].toUpperCase()}${letters(i)[1]}`;
    files[`mongoose/lib/types/array/${name}.js`] = `function ${name}(values) {\n  return new MongooseArray(values.slice(${i}));\n}\nmodule.exports = ${name};\n`;
  }
  Object.assign(files, {
    'package.json': '{"name":"app"}',
    'commander/lib/command.js': `class Command {\n${['command', 'command', 'addCommand'].map(method).join('\n')}\n}\nmodule.exports = { Command };\n`,
    'commander/typings/index.d.ts': 'export class Command {\n  command(nameAndArgs: string, opts?: CommandOptions): Command;\n  command(nameAndArgs: string, description: string, opts?: ExecutableCommandOptions): this;\n}\n',
    'yargs/lib/command.js': 'export function command(usage, validation, globalMiddleware, shim) {\n  return new CommandInstance(usage, validation, globalMiddleware, shim);\n}\n',
    'sequelize/types/data-types.d.ts': '/** An array of `type`. */\nexport const ARRAY: ArrayDataTypeConstructor;\n',
  });
  return files;
}

/**
 * A Nuxt app's names that no file spells: composables exported anonymously (`export default
 * function ()`), which Nuxt auto-imports by their file's name (`useCart`, `use-auth.ts`:
 * `useAuth`), 30 lines long; components in folders below `components/`, which Nuxt registers
 * under their folders' and file's names (`components/base/Button.vue`: `<BaseButton>`,
 * `components/form/input/index.vue`: `<FormInput>`); and twelve short pages that call and
 * show them all. Each query asks for the file that defines the name.
 */
export const NUXT_NAMES: ReadonlyArray<[query: string, file: string]> = [
  ['use cart (useCart)', 'composables/useCart.ts'],
  ['useCart', 'composables/useCart.ts'],
  ['use auth (useAuth)', 'composables/use-auth.ts'],
  ['useAuth', 'composables/use-auth.ts'],
  ['base button (BaseButton)', 'components/base/Button.vue'],
  ['BaseButton', 'components/base/Button.vue'],
  ['FormInput', 'components/form/input/index.vue'],
  // a name of one character, which no keyword term holds (Nuxt UI Pro's prose/A.vue, prose/P.vue)
  ['A', 'components/prose/A.vue'],
  ['a (A)', 'components/prose/A.vue'],
  ['p (P)', 'components/prose/P.vue'],
];

/** The Nuxt layout: relative path → text. */
export function nuxtLayout(): Record<string, string> {
  const body = Array.from({ length: 30 }, (_, i) => `  const step${i} = computed(() => items.value.filter((x) => x.qty > ${i}).length)`).join('\n');
  const files: Record<string, string> = {
    'composables/useCart.ts': `export default function () {\n  const items = useState('cart', () => [])\n${body}\n  return { items }\n}\n`,
    'composables/use-auth.ts': `export default () => {\n  const user = useState('user', () => null)\n  const items = ref([])\n${body}\n  return { user }\n}\n`,
    'components/base/Button.vue': '<template>\n  <button :class="[\'btn\', `btn-${variant}`]" @click="$emit(\'click\')"><slot /></button>\n</template>\n<script setup lang="ts">\ndefineProps<{ variant?: string }>()\n</script>\n',
    'components/prose/A.vue': '<template>\n  <a :href="href" :target="target"><slot /></a>\n</template>\n<script setup lang="ts">\ndefineProps<{ href?: string; target?: string }>()\n</script>\n',
    'components/prose/P.vue': '<template>\n  <p><slot /></p>\n</template>\n',
    'components/form/input/index.vue': '<template>\n  <input :value="modelValue" @input="$emit(\'update:modelValue\', $event.target.value)" />\n</template>\n',
  };
  for (let i = 0; i < 12; i++) {
    files[`pages/page${i}.vue`] = `<template>\n  <div>\n    <p>{{ items.length }} {{ user }}</p>\n    <FormInput v-model="name" />\n    <BaseButton variant="primary" @click="save">Save</BaseButton>\n  </div>\n</template>\n<script setup lang="ts">\nconst { items } = useCart()\nconst { user } = useAuth()\n</script>\n`;
  }
  return files;
}

