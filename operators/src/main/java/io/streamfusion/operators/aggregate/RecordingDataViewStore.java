package io.streamfusion.operators.aggregate;

import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.table.runtime.dataview.StateDataViewStore;
import org.apache.flink.table.runtime.dataview.StateListView;
import org.apache.flink.table.runtime.dataview.StateMapView;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The data-view store the substitution opens a generated aggregate handler with: it records the
 * {@code MapView}s the handler asks for (their state names and serializers, see {@link
 * ElementTableSpec}) and hands out views on the heap, so that {@link AggregateCallProbe} can run
 * the handler. A {@code ListView} has no native kernel and is refused.
 */
final class RecordingDataViewStore implements StateDataViewStore {

    private final List<ElementTableSpec> recorded = new ArrayList<>();
    private final List<HeapMapView<?, ?, ?>> views = new ArrayList<>();

    /** The views the handler asked for, each once, in order. */
    List<ElementTableSpec> recorded() {
        return Collections.unmodifiableList(recorded);
    }

    /** Empties every view, so that a probe starts from no state. */
    void clearViews() {
        views.forEach(HeapMapView::clear);
    }

    @Override
    public <N, EK, EV> StateMapView<N, EK, EV> getStateMapView(
            String stateName,
            boolean supportNullKey,
            TypeSerializer<EK> keySerializer,
            TypeSerializer<EV> valueSerializer) {
        // A handler that merges asks for each view twice (the second is its backup for the
        // merged accumulators); both are one state.
        if (recorded.stream().noneMatch(view -> view.name().equals(stateName))) {
            recorded.add(
                    new ElementTableSpec(
                            stateName, supportNullKey, keySerializer, valueSerializer));
        }
        HeapMapView<N, EK, EV> view = new HeapMapView<>();
        views.add(view);
        return view;
    }

    @Override
    public <N, EE> StateListView<N, EE> getStateListView(
            String stateName, TypeSerializer<EE> elementSerializer) {
        return NoDataViewStore.INSTANCE.getStateListView(stateName, elementSerializer);
    }

    /**
     * A runtime context that knows only the user code class loader: Flink's built-in imperative
     * functions (MIN and MAX over retractions) need no more when they open (their accumulators'
     * converters load classes), and a function that asks for anything else fails the probe, so it
     * keeps Flink's operator.
     */
    @Override
    public RuntimeContext getRuntimeContext() {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        return (RuntimeContext)
                Proxy.newProxyInstance(
                        RuntimeContext.class.getClassLoader(),
                        new Class<?>[] {RuntimeContext.class},
                        (proxy, method, arguments) -> {
                            if (method.getName().equals("getUserCodeClassLoader")) {
                                return loader;
                            }
                            throw new NoDataViewStore.Refused(
                                    "a runtime context's " + method.getName() + "()");
                        });
    }

    /** A view in a {@code HashMap}, NULL keys included. */
    private static final class HeapMapView<N, EK, EV> extends StateMapView<N, EK, EV> {
        private final Map<EK, EV> entries = new HashMap<>();

        @Override
        public EV get(EK key) {
            return entries.get(key);
        }

        @Override
        public void put(EK key, EV value) {
            entries.put(key, value);
        }

        @Override
        public void putAll(Map<EK, EV> map) {
            entries.putAll(map);
        }

        @Override
        public void remove(EK key) {
            entries.remove(key);
        }

        @Override
        public boolean contains(EK key) {
            return entries.containsKey(key);
        }

        @Override
        public Iterable<Map.Entry<EK, EV>> entries() {
            return entries.entrySet();
        }

        @Override
        public Iterable<EK> keys() {
            return entries.keySet();
        }

        @Override
        public Iterable<EV> values() {
            return entries.values();
        }

        @Override
        public Iterator<Map.Entry<EK, EV>> iterator() {
            return entries.entrySet().iterator();
        }

        @Override
        public boolean isEmpty() {
            return entries.isEmpty();
        }

        @Override
        public void clear() {
            entries.clear();
        }

        @Override
        public void setCurrentNamespace(N namespace) {}
    }
}
