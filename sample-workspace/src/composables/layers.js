import { ref, computed } from 'vue'

const layers = ref([])

export function useLayers () {
  const visible = computed(() => layers.value.filter((layer) => layer.isVisible))

  function isVisible (name) {
    return visible.value.some((layer) => layer.name === name)
  }

  function addLayer (layer) {
    if (layers.value.some((l) => l.name === layer.name)) throw new Error(`Layer ${layer.name} already exists`)
    layers.value.push({ ...layer, isVisible: true })
  }

  return { layers, visible, isVisible, addLayer }
}
