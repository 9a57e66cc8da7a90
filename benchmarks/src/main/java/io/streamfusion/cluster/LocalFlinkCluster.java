package io.streamfusion.cluster;

import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real Flink 2.2.1 session cluster on loopback, started from the Maven artifacts: one JobManager
 * JVM and several TaskManager JVMs, each a separate process, with the StreamFusion plugin jar on
 * their class path as Flink's {@code lib/} would have it, and checkpoints on local disk. Closing it
 * kills every process, also when a test fails.
 */
public final class LocalFlinkCluster implements AutoCloseable {

    /**
     * The JVM limits Flink's {@code taskmanager.sh} derives from the memory settings of {@link
     * #writeConfig}: heap = framework heap + task heap (128m + 384m), direct memory = framework
     * off-heap + task off-heap + network (128m + 0m + 64m), metaspace as configured. Without them
     * the JVM's own defaults (a quarter of the machine's memory for the heap) would let a
     * TaskManager outgrow the process size its memory model gives it.
     */
    private static final List<String> TASK_MANAGER_JVM_MEMORY =
            List.of(
                    "-Xmx512m",
                    "-Xms512m",
                    "-XX:MaxDirectMemorySize=192m",
                    "-XX:MaxMetaspaceSize=256m");

    /** What a cluster is started with. */
    public record Settings(
            Path workDir,
            String classPath,
            List<String> jvmOptions,
            int taskManagers,
            int slotsPerTaskManager,
            String managedMemoryPerTaskManager,
            Map<String, String> extraConfig) {}

    private static final Duration STARTUP = Duration.ofMinutes(2);

    private final Settings settings;
    private final Path configDir;
    private final int restPort;
    private final HttpClient http = HttpClient.newHttpClient();
    private Process jobManager;
    private final List<Process> taskManagers = new ArrayList<>();
    private int launchedTaskManagers;

    private LocalFlinkCluster(Settings settings, Path configDir, int restPort) {
        this.settings = settings;
        this.configDir = configDir;
        this.restPort = restPort;
    }

    /**
     * Starts the JobManager and the TaskManagers and waits until every slot is registered. A
     * JobManager that exits while starting is started again, on new ports, up to {@value
     * #STARTUP_ATTEMPTS} times: its ports are picked free but only bound later, when another
     * process may have taken one. A JobManager that cannot start at all fails every attempt.
     */
    public static LocalFlinkCluster start(Settings settings) throws Exception {
        for (int attempt = 1; ; attempt++) {
            try {
                return startOnce(settings);
            } catch (JobManagerExited e) {
                if (attempt == STARTUP_ATTEMPTS) {
                    throw e;
                }
                System.err.println(
                        "Starting again on new ports (attempt "
                                + attempt
                                + " of "
                                + STARTUP_ATTEMPTS
                                + " failed): "
                                + e.getMessage());
            }
        }
    }

    private static final int STARTUP_ATTEMPTS = 3;

    /** The JobManager process exited while the cluster started; the message holds its log's end. */
    static final class JobManagerExited extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        JobManagerExited(String message) {
            super(message);
        }
    }

    private static LocalFlinkCluster startOnce(Settings settings) throws Exception {
        Path configDir = Files.createDirectories(settings.workDir().resolve("conf"));
        int restPort = freePort();
        LocalFlinkCluster cluster = new LocalFlinkCluster(settings, configDir, restPort);
        try {
            cluster.writeConfig();
            cluster.jobManager =
                    cluster.launch(
                            "jobmanager",
                            "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint",
                            List.of());
            for (int i = 0; i < settings.taskManagers(); i++) {
                cluster.startTaskManager();
            }
            cluster.awaitTaskManagers(settings.taskManagers());
            return cluster;
        } catch (Exception e) {
            cluster.close();
            throw e;
        }
    }

    public int restPort() {
        return restPort;
    }

    public Path checkpointDir() {
        return settings.workDir().resolve("checkpoints");
    }

    /** Starts one more TaskManager process, for example to replace a killed one. */
    public void startTaskManager() throws IOException {
        taskManagers.add(
                launch(
                        "taskmanager-" + launchedTaskManagers++,
                        "org.apache.flink.runtime.taskexecutor.TaskManagerRunner",
                        TASK_MANAGER_JVM_MEMORY));
    }

    /** Kills a running TaskManager with SIGKILL, as a machine failure would. */
    public void killTaskManager(int index) throws InterruptedException {
        Process process = taskManagers.get(index);
        process.destroyForcibly();
        process.waitFor();
    }

    /** The process id of a TaskManager, for measuring its resident memory. */
    public long taskManagerPid(int index) {
        return taskManagers.get(index).pid();
    }

    /** Waits until the JobManager's REST API lists {@code count} registered TaskManagers. */
    public void awaitTaskManagers(int count) throws Exception {
        long deadline = System.nanoTime() + STARTUP.toNanos();
        while (true) {
            String body = get("/taskmanagers");
            if (body != null && countMatches(body, "\"slotsNumber\"") >= count) {
                return;
            }
            if (!jobManager.isAlive()) {
                throw new JobManagerExited(
                        "The JobManager exited with "
                                + jobManager.exitValue()
                                + "; the end of "
                                + log("jobmanager")
                                + ":\n"
                                + lastLines(log("jobmanager"), 15)
                                + "\nand of its output:\n"
                                + lastLines(
                                        log("jobmanager").resolveSibling("jobmanager.out"), 15));
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "Fewer than "
                                + count
                                + " TaskManagers registered within "
                                + STARTUP
                                + "; see the logs in "
                                + settings.workDir());
            }
            Thread.sleep(200);
        }
    }

    /** The body of a GET on the JobManager's REST API, or null if it is not answering yet. */
    public String get(String path) {
        try {
            HttpResponse<String> response =
                    http.send(
                            HttpRequest.newBuilder(
                                            URI.create("http://localhost:" + restPort + path))
                                    .timeout(Duration.ofSeconds(5))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? response.body() : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** Completed checkpoints of a job, from the REST API; -1 if unknown. */
    public long completedCheckpoints(String jobId) {
        String body = get("/jobs/" + jobId + "/checkpoints");
        if (body == null) {
            return -1;
        }
        Matcher m = Pattern.compile("\"completed\"\\s*:\\s*(\\d+)").matcher(body);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    private static int countMatches(String text, String token) {
        int count = 0;
        for (int at = text.indexOf(token); at >= 0; at = text.indexOf(token, at + token.length())) {
            count++;
        }
        return count;
    }

    /** The last {@code count} lines of a log, which a test's temporary directory will not keep. */
    private static String lastLines(Path file, int count) {
        try {
            List<String> lines = Files.readAllLines(file);
            return String.join(
                    "\n", lines.subList(Math.max(0, lines.size() - count), lines.size()));
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    private Path log(String name) {
        return settings.workDir().resolve("logs").resolve(name + ".log");
    }

    private Process launch(String name, String mainClass, List<String> memoryOptions)
            throws IOException {
        Files.createDirectories(log(name).getParent());
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(memoryOptions);
        command.addAll(settings.jvmOptions());
        command.add("-Dlog.file=" + log(name));
        command.add("-Dlog4j.configurationFile=" + configDir.resolve("log4j2.properties").toUri());
        command.add("-cp");
        command.add(settings.classPath());
        command.add(mainClass);
        command.add("--configDir");
        command.add(configDir.toString());
        return new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(
                        ProcessBuilder.Redirect.appendTo(
                                log(name).resolveSibling(name + ".out").toFile()))
                .start();
    }

    private void writeConfig() throws IOException {
        Map<String, String> config = new LinkedHashMap<>();
        config.put("jobmanager.rpc.address", "localhost");
        config.put("jobmanager.bind-host", "localhost");
        config.put("jobmanager.rpc.port", Integer.toString(freePort()));
        config.put("rest.address", "localhost");
        config.put("rest.bind-address", "localhost");
        config.put("rest.port", Integer.toString(restPort));
        config.put("taskmanager.host", "localhost");
        config.put("taskmanager.bind-host", "localhost");
        config.put(
                "taskmanager.numberOfTaskSlots", Integer.toString(settings.slotsPerTaskManager()));
        // Flink's shell scripts derive these; the runner refuses to start without them.
        config.put("taskmanager.memory.framework.heap.size", "128m");
        config.put("taskmanager.memory.task.heap.size", "384m");
        config.put("taskmanager.memory.managed.size", settings.managedMemoryPerTaskManager());
        config.put("taskmanager.memory.network.min", "64m");
        config.put("taskmanager.memory.network.max", "64m");
        config.put("taskmanager.memory.framework.off-heap.size", "128m");
        config.put("taskmanager.memory.task.off-heap.size", "0m");
        config.put("taskmanager.memory.jvm-metaspace.size", "256m");
        config.put("taskmanager.memory.jvm-overhead.min", "192m");
        config.put("taskmanager.memory.jvm-overhead.max", "192m");
        config.put("taskmanager.cpu.cores", Integer.toString(settings.slotsPerTaskManager()));
        config.put("jobmanager.memory.process.size", "1g");
        // A killed TaskManager is noticed within seconds, not the default 50.
        config.put("heartbeat.interval", "1000");
        config.put("heartbeat.timeout", "5000");
        config.put("state.backend.type", "streamfusion");
        config.put("execution.checkpointing.dir", checkpointDir().toUri().toString());
        config.put("restart-strategy.type", "fixed-delay");
        config.put("restart-strategy.fixed-delay.attempts", "10");
        config.put("restart-strategy.fixed-delay.delay", "1 s");
        config.putAll(settings.extraConfig());
        StringBuilder yaml = new StringBuilder();
        config.forEach((key, value) -> yaml.append(key).append(": ").append(value).append('\n'));
        Files.writeString(configDir.resolve("config.yaml"), yaml);
        Files.writeString(
                configDir.resolve("log4j2.properties"),
                String.join(
                        "\n",
                        "rootLogger.level = INFO",
                        "rootLogger.appenderRef.file.ref = file",
                        "appender.file.type = File",
                        "appender.file.name = file",
                        "appender.file.fileName = ${sys:log.file}",
                        "appender.file.layout.type = PatternLayout",
                        "appender.file.layout.pattern = %d{HH:mm:ss,SSS} %-5p %c{1} - %m%n",
                        ""));
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Override
    public void close() {
        for (Process process : taskManagers) {
            process.destroyForcibly();
        }
        if (jobManager != null) {
            jobManager.destroyForcibly();
        }
        for (Process process : taskManagers) {
            waitQuietly(process);
        }
        if (jobManager != null) {
            waitQuietly(jobManager);
        }
    }

    private static void waitQuietly(Process process) {
        try {
            process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Settings from the system properties that bin/ scripts and failsafe set: {@code
     * streamfusion.plugin.jar}, {@code streamfusion.jvm.opens}, and this JVM's class path.
     */
    public static Settings settingsFromSystemProperties(
            Path workDir,
            int taskManagers,
            int slotsPerTaskManager,
            Map<String, String> extraConfig) {
        File plugin = new File(requiredProperty("streamfusion.plugin.jar"));
        if (!plugin.isFile()) {
            throw new IllegalStateException(
                    "The plugin jar " + plugin + " does not exist; build it with mvn package");
        }
        return new Settings(
                workDir,
                clusterClassPath(System.getProperty("java.class.path"), plugin),
                List.of(requiredProperty("streamfusion.jvm.opens").trim().split("\\s+")),
                taskManagers,
                slotsPerTaskManager,
                "256m",
                extraConfig);
    }

    /**
     * A client environment for this cluster that ships the job classes in the jar named by {@code
     * streamfusion.job.jar}, checkpointing every 500 ms.
     */
    public StreamExecutionEnvironment environment(int parallelism, Configuration extra) {
        Configuration config = new Configuration(extra);
        config.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(500));
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.createRemoteEnvironment(
                        "localhost", restPort, config, requiredProperty("streamfusion.job.jar"));
        env.setParallelism(parallelism);
        return env;
    }

    private static String requiredProperty(String name) {
        String value = System.getProperty(name);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException(
                    "System property "
                            + name
                            + " is not set: start through bin/cluster, bin/demo --cluster, or"
                            + " mvn -Pcluster-tests verify");
        }
        return value;
    }

    /**
     * What {@code bin/cluster} runs: a cluster of two TaskManagers with two slots each, until the
     * process is interrupted.
     */
    public static void main(String[] args) throws Exception {
        Path workDir =
                args.length > 0
                        ? Path.of(args[0])
                        : Files.createTempDirectory("streamfusion-cluster-");
        LocalFlinkCluster cluster = start(settingsFromSystemProperties(workDir, 2, 2, Map.of()));
        Runtime.getRuntime().addShutdownHook(new Thread(cluster::close));
        System.out.println(
                "StreamFusion session cluster running: REST API at http://localhost:"
                        + cluster.restPort()
                        + ", state.backend.type: streamfusion, checkpoints in "
                        + cluster.checkpointDir()
                        + ", logs in "
                        + workDir.resolve("logs")
                        + ". Submit with flink run -m localhost:"
                        + cluster.restPort()
                        + ". Ctrl-C stops it.");
        Thread.currentThread().join();
    }

    /**
     * Keeps only class-path entries a Flink distribution's lib/ would hold, plus the plugin jar.
     */
    public static String clusterClassPath(String testClassPath, File pluginJar) {
        List<String> kept = new ArrayList<>();
        kept.add(pluginJar.getAbsolutePath());
        for (String entry : testClassPath.split(File.pathSeparator)) {
            String name = new File(entry).getName();
            // Arrow comes with the plugin jar, as it would in a Flink distribution.
            boolean ours =
                    name.startsWith("streamfusion-")
                            || name.startsWith("arrow-")
                            || entry.endsWith("classes")
                            || entry.contains("junit")
                            || name.startsWith("jmh-");
            if (!ours) {
                kept.add(entry);
            }
        }
        return String.join(File.pathSeparator, kept);
    }
}
