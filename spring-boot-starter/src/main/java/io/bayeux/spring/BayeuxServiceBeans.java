package io.bayeux.spring;

import io.bayeux.annotation.Service;
import io.bayeux.annotation.server.ServerAnnotationProcessor;
import io.bayeux.api.server.BayeuxServer;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.DestructionAwareBeanPostProcessor;
import org.springframework.core.Ordered;
import org.springframework.core.PriorityOrdered;

/**
 * Registers every bean whose class is annotated with the project's {@link Service} as an
 * annotated service of the auto-configured {@link BayeuxServer}, and deregisters it when the bean
 * is destroyed. Spring injects the bean (its {@code @Inject} and {@code @Autowired} members, the
 * {@code BayeuxServer} bean among them) and runs its {@code @PostConstruct} and
 * {@code @PreDestroy} methods; the {@linkplain ServerAnnotationProcessor#forContainer processor}
 * does the rest.
 *
 * <p>The order is the one a service has outside Spring: the bean gets its session, its
 * {@code @Session} fields, channels, listeners and subscriptions after Spring injected it and
 * before its {@code @PostConstruct} runs (this post-processor runs ahead of Spring's lifecycle
 * annotations); on destroy, its {@code @PreDestroy} runs first, then {@link Deregistration}
 * removes what was added. When the context closes, Spring stops the server (a lifecycle bean)
 * before it destroys beans, so a {@code @PreDestroy} method finds the sessions gone. A service is
 * the bean itself, not a proxy of it: its annotated methods are called directly.
 *
 * <p>The processor is made at the first service bean, from the {@code BayeuxServer} bean: a
 * post-processor is made before ordinary beans, and must not pull the server in early.
 * Thread-safe (Spring may create beans on several threads).
 */
public final class BayeuxServiceBeans implements BeanPostProcessor, PriorityOrdered, BeanFactoryAware {
    private BeanFactory beanFactory;
    /** Made once, at the first service bean; guarded by {@code this}. */
    private ServerAnnotationProcessor processor;

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    @Override
    public Object postProcessBeforeInitialization(Object bean, String beanName) throws BeansException {
        if (isService(bean)) {
            processor().process(bean);
        }
        return bean;
    }

    /** Ahead of Spring's {@code @PostConstruct} handling, which runs at {@code LOWEST_PRECEDENCE - 3}. */
    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE + 100;
    }

    /** The processor that registered the service beans. */
    public synchronized ServerAnnotationProcessor processor() {
        if (processor == null) {
            processor = ServerAnnotationProcessor.forContainer(beanFactory.getBean(BayeuxServer.class));
        }
        return processor;
    }

    /** The processor if a service was registered, else null. */
    synchronized ServerAnnotationProcessor processorIfMade() {
        return processor;
    }

    static boolean isService(Object bean) {
        return bean.getClass().isAnnotationPresent(Service.class);
    }

    /**
     * Deregisters a service bean as it is destroyed: after its {@code @PreDestroy} (this
     * post-processor has no order, so Spring runs it after its own), its listeners and
     * subscriptions are removed and its session disconnected.
     */
    public static final class Deregistration implements DestructionAwareBeanPostProcessor {
        private final BayeuxServiceBeans registration;

        public Deregistration(BayeuxServiceBeans registration) {
            this.registration = registration;
        }

        @Override
        public boolean requiresDestruction(Object bean) {
            return isService(bean);
        }

        @Override
        public void postProcessBeforeDestruction(Object bean, String beanName) throws BeansException {
            ServerAnnotationProcessor processor = registration.processorIfMade();
            if (processor != null) {
                processor.deprocess(bean);
            }
        }
    }
}
