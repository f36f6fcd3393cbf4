package io.bayeux.annotation;

import io.bayeux.api.ChannelId;

import java.lang.annotation.Annotation;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** Reflection shared by the server and client annotation processors. */
public final class AnnotatedMethods {
    private AnnotatedMethods() {
    }

    /** The methods of the class and its superclasses carrying {@code annotation}, superclass first. */
    public static List<Method> find(Class<?> type, Class<? extends Annotation> annotation) {
        List<Class<?>> hierarchy = new ArrayList<>();
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            hierarchy.add(0, c);
        }
        List<Method> result = new ArrayList<>();
        for (Class<?> c : hierarchy) {
            for (Method method : c.getDeclaredMethods()) {
                if (method.isAnnotationPresent(annotation) && !method.isSynthetic()) {
                    method.setAccessible(true);
                    result.add(method);
                }
            }
        }
        return result;
    }

    /** The fields of the class and its superclasses carrying {@code annotation}. */
    public static List<Field> fields(Class<?> type, Class<? extends Annotation> annotation) {
        List<Field> result = new ArrayList<>();
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field field : c.getDeclaredFields()) {
                if (field.isAnnotationPresent(annotation)) {
                    if (Modifier.isStatic(field.getModifiers())) {
                        throw new IllegalArgumentException("Field " + c.getName() + "." + field.getName()
                                + " annotated with @" + annotation.getSimpleName() + " must not be static");
                    }
                    field.setAccessible(true);
                    result.add(field);
                }
            }
        }
        return result;
    }

    /** Sets a field, wrapping reflection failures. */
    public static void set(Field field, Object target, Object value) {
        try {
            field.set(target, value);
        } catch (IllegalAccessException x) {
            throw new IllegalStateException("Cannot set " + field, x);
        }
    }

    /**
     * Checks that {@code method} takes {@code fixed} parameters, then only {@code @Param String}
     * parameters naming parameters of every channel in {@code channels}.
     *
     * @throws IllegalArgumentException naming the class, the method and what was expected
     */
    public static void checkSignature(Method method, Class<? extends Annotation> annotation, String[] channels, Class<?>... fixed) {
        Parameter[] parameters = method.getParameters();
        boolean ok = parameters.length >= fixed.length;
        for (int i = 0; ok && i < fixed.length; i++) {
            // The processor passes a value of the fixed type: the parameter must accept it.
            ok = parameters[i].getType().isAssignableFrom(fixed[i]);
        }
        for (int i = fixed.length; ok && i < parameters.length; i++) {
            Param param = parameters[i].getAnnotation(Param.class);
            ok = param != null && parameters[i].getType() == String.class;
            if (ok && channels != null) {
                for (String channel : channels) {
                    if (!ChannelId.of(channel).getParameters().contains(param.value())) {
                        throw new IllegalArgumentException(describe(method) + " annotated with @" + annotation.getSimpleName()
                                + " has @Param(\"" + param.value() + "\") but channel " + channel + " has no such parameter");
                    }
                }
            }
        }
        if (!ok) {
            String expected = Arrays.stream(fixed).map(AnnotatedMethods::typeName).collect(Collectors.joining(", "));
            throw new IllegalArgumentException(describe(method) + " annotated with @" + annotation.getSimpleName()
                    + " must take (" + expected + (channels != null ? "[, @Param String...]" : "") + ") but takes ("
                    + Arrays.stream(parameters).map(p -> typeName(p.getType())).collect(Collectors.joining(", ")) + ")");
        }
    }

    /** Checks that a lifecycle method takes no parameter. */
    public static void checkNoParameters(Method method, Class<? extends Annotation> annotation) {
        if (method.getParameterCount() != 0) {
            throw new IllegalArgumentException(describe(method) + " annotated with @" + annotation.getSimpleName() + " must take no parameters");
        }
    }

    /** A type's simple name qualified by its enclosing types: {@code ServerMessage.Mutable}, not {@code Mutable}. */
    public static String typeName(Class<?> type) {
        if (type.isArray()) {
            return typeName(type.getComponentType()) + "[]";
        }
        Class<?> enclosing = type.getEnclosingClass();
        return enclosing == null ? type.getSimpleName() : typeName(enclosing) + "." + type.getSimpleName();
    }

    /** {@code Method <class name>.<method name>()}, for error messages. */
    public static String describe(Method method) {
        return "Method " + method.getDeclaringClass().getName() + "." + method.getName() + "()";
    }

    /** The {@code @Param} values bound from a channel, in the method's parameter order after {@code fixed} arguments. */
    public static Object[] arguments(Method method, Object[] fixed, Map<String, String> bound) {
        Parameter[] parameters = method.getParameters();
        Object[] args = Arrays.copyOf(fixed, parameters.length);
        for (int i = fixed.length; i < parameters.length; i++) {
            args[i] = bound.get(parameters[i].getAnnotation(Param.class).value());
        }
        return args;
    }

    /** Invokes, unwrapping the target's own exception. */
    public static Object invoke(Method method, Object target, Object... args) {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException x) {
            Throwable cause = x.getCause();
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException(describe(method) + " failed", cause);
        } catch (IllegalAccessException x) {
            throw new IllegalStateException("Cannot invoke " + describe(method), x);
        }
    }

    /**
     * The channel to listen or subscribe on for a possibly templated channel: a template's
     * parameters and what follows become a wildcard ({@code /chat/{room}} listens on
     * {@code /chat/*}; {@code /a/{x}/{y}} on {@code /a/**}).
     */
    public static String listenChannel(String channel) {
        ChannelId id = ChannelId.of(channel);
        if (!id.isTemplate()) {
            return channel;
        }
        StringBuilder prefix = new StringBuilder();
        int first = -1;
        for (int i = 0; i < id.depth(); i++) {
            String segment = id.getSegment(i);
            if (segment.startsWith("{")) {
                first = i;
                break;
            }
            prefix.append('/').append(segment);
        }
        return prefix + (first == id.depth() - 1 ? "/" + ChannelId.WILD : "/" + ChannelId.DEEPWILD);
    }
}
