package io.streamfusion.backend;

import org.apache.flink.runtime.operators.testutils.MockEnvironment;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** Gives each test a task environment with managed memory, as a TaskManager slot has. */
abstract class MockEnvironmentTestBase {

    protected MockEnvironment env;

    @BeforeEach
    void createEnvironment() {
        env = TestKeyedBackends.environment();
    }

    @AfterEach
    void closeEnvironment() throws Exception {
        env.close();
    }
}
