package io.streamfusion.operators.aggregate;

import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.table.runtime.dataview.StateDataViewStore;
import org.apache.flink.table.runtime.dataview.StateListView;
import org.apache.flink.table.runtime.dataview.StateMapView;

/**
 * The data-view store the probe opens a handler with: a handler that asks it for a view keeps a
 * DataView, which the native kernels do not compute.
 */
final class NoDataViewStore implements StateDataViewStore {

    static final NoDataViewStore INSTANCE = new NoDataViewStore();

    /** Thrown when a handler asks for a view or a runtime context. */
    static final class Refused extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Refused(String what) {
            super("it needs " + what + ", which the native kernels do not have");
        }
    }

    @Override
    public <N, EK, EV> StateMapView<N, EK, EV> getStateMapView(
            String stateName,
            boolean supportNullKey,
            TypeSerializer<EK> keySerializer,
            TypeSerializer<EV> valueSerializer) {
        throw new Refused("a MapView (" + stateName + ")");
    }

    @Override
    public <N, EE> StateListView<N, EE> getStateListView(
            String stateName, TypeSerializer<EE> elementSerializer) {
        throw new Refused("a ListView (" + stateName + ")");
    }

    @Override
    public RuntimeContext getRuntimeContext() {
        throw new Refused("a runtime context (a user-defined function)");
    }
}
